import AudioFiles
import AudioGraph
import LV2
import Sampler

extension SongRenderer {
    /// Renders the song's blocks into `output` (not finished) until the render ends, or exactly
    /// `frames` frames (cut, or padded with silence), then writes what `output` gathered: the loop
    /// of every render to a file, `BlockFileWriter.append(blocks:frames:isCancelled:progress:afterBlock:)`,
    /// over `renderNextBlock()`. `afterBlock` gets each block (the gain applied) and how many of its
    /// frames were written (a stem or a meter reads it then); `progress` the frames written so far,
    /// every 16384 or so and at the end. When `isCancelled` turns true between blocks, or anything
    /// throws, `output` is cancelled (no file left under its name); returns false when cancelled.
    public func render(into output: BlockFileWriter, frames: Int64? = nil, isCancelled: () -> Bool = { false },
                       progress: (Int64) -> Void = { _ in },
                       afterBlock: (AudioBuffer, Int) throws(AudioFileError) -> Void = { _, _ in }) throws(AudioFileError) -> Bool {
        try output.append(blocks: { renderNextBlock() }, frames: frames, isCancelled: isCancelled, progress: progress,
                          afterBlock: afterBlock) != nil
    }

    /// Renders the whole song and tail into `writer` and finishes the file; on any failure, or when
    /// `isCancelled` turns true between blocks, the writer is cancelled, so no partial file is left
    /// under its name. `progress` is called every 16384 frames or so with the frames rendered so far.
    /// Returns the frames written, or nil when cancelled. (The loop is `render(into:)`'s.)
    @discardableResult
    public func render(to writer: AudioFileWriter, isCancelled: () -> Bool = { false },
                       progress: ((Int64) -> Void)? = nil) throws(RenderError) -> Int64? {
        try renderMeasuringPeak(to: writer, isCancelled: isCancelled, progress: progress)?.frames
    }

    /// Renders as `render(to:isCancelled:progress:)` does; returns the frames written and the highest
    /// absolute sample among them (1: full scale; above it, an integer file clipped), or nil when cancelled.
    public func renderMeasuringPeak(to writer: AudioFileWriter, isCancelled: () -> Bool = { false },
                                    progress: ((Int64) -> Void)? = nil) throws(RenderError) -> (frames: Int64, peak: Float)? {
        let output = BlockFileWriter(file: writer)
        do throws(AudioFileError) {
            guard try render(into: output, isCancelled: isCancelled, progress: { progress?($0) },
                             afterBlock: { _, _ in
                FluidSynthLog.forwardPendingMessages()
                LV2Log.forwardPendingMessages()
            }) else { return nil }
            try output.finish()
        } catch {
            writer.cancel()
            throw .audioFile(error)
        }
        return (renderedFrames, output.peak)
    }

    /// Renders the whole song and tail to the file at `path` (see `render(to:isCancelled:progress:)`),
    /// at the renderer's sample rate and channel count; `format` defaults to the one the extension
    /// names. Returns the frames written, or nil when cancelled.
    @discardableResult
    public func render(toFile path: String, format: AudioFileFormat? = nil, sampleFormat: AudioSampleFormat? = nil,
                       isCancelled: () -> Bool = { false }, progress: ((Int64) -> Void)? = nil) throws(RenderError) -> Int64? {
        let writer: AudioFileWriter
        do throws(AudioFileError) {
            writer = try AudioFileWriter(path: path, format: format, sampleFormat: sampleFormat,
                                         sampleRate: options.sampleRate, channelCount: options.outputChannelCount,
                                         expectedFrameCount: maximumFrames)
        } catch {
            throw .audioFile(error)
        }
        return try render(to: writer, isCancelled: isCancelled, progress: progress)
    }
}
