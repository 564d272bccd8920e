import AudioFiles
import AudioGraph

extension SongRenderer {
    /// The render-to-file loop: renders the song's blocks into `output` (not finished) until the
    /// render ends, or exactly `frames` frames (cut, or padded with silence), then writes what
    /// `output` gathered. `afterBlock` gets each block (the gain applied) and how many of its frames
    /// were written (a stem or a meter reads it then); `progress` the frames written so far, every
    /// 16384 or so and at the end. When `isCancelled` turns true between blocks, or anything throws,
    /// `output` is cancelled (no file left under its name); returns false when cancelled.
    public func render(into output: BlockFileWriter, frames: Int64? = nil, isCancelled: () -> Bool = { false },
                       progress: (Int64) -> Void = { _ in },
                       afterBlock: (AudioBuffer, Int) throws(AudioFileError) -> Void = { _, _ in }) throws(AudioFileError) -> Bool {
        var written: Int64 = 0, reported: Int64 = 0
        do throws(AudioFileError) {
            while frames.map({ written < $0 }) ?? true, let block = renderNextBlock() {
                if isCancelled() {
                    output.cancel()
                    return false
                }
                let count = Int(min(Int64(block.frameLength), (frames ?? Int64.max) - written))
                try output.append(block, frameCount: count)
                try afterBlock(block, count)
                written += Int64(count)
                if written - reported >= 16_384 {
                    progress(written)
                    reported = written
                }
            }
            if let frames, written < frames {
                try output.appendSilence(frameCount: frames - written)
                written = frames
            }
            try output.flush()
        } catch {
            output.cancel()
            throw error
        }
        progress(written)
        return true
    }
}
