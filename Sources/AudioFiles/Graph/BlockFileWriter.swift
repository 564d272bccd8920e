import AudioGraph

/// Rendered blocks written to an audio file: scaled by a gain, their peak measured, and gathered
/// into writes of `framesPerWrite` frames. Every render to a file writes through one (a song's:
/// `-o`, a batch's mixes, its stems; an engine's, `AudioEngine.render(to:frameCount:untilSilent:)`),
/// and `append(blocks:frames:isCancelled:progress:afterBlock:)` is the loop of each.
///
/// libsndfile makes a system call of every write (of 8 KiB at most for 16-bit samples), and a
/// renderer's blocks are 512 frames; written one by one, they cost ~50,000 system calls per 10
/// minutes of audio. The bytes written are the same either way.
public final class BlockFileWriter {
    /// Frames gathered before each write.
    public static let framesPerWrite = 4096

    /// The file written, nil when only the peak is measured.
    public let file: AudioFileWriter?
    /// The gain every block is scaled by (in place) before it is measured and written.
    public let gain: Float
    /// The highest absolute sample of every block appended so far (after the gain), over all of its channels.
    public private(set) var peak: Float = 0
    /// Frames appended so far (written or gathered).
    public private(set) var frameCount: Int64 = 0

    /// Interleaved frames gathered for the next write.
    private let staged: UnsafeMutablePointer<Float>
    private var stagedFrames = 0
    private let channelCount: Int

    /// Writes to `file` (nil: measures only), each block scaled by `gain`.
    public init(file: AudioFileWriter?, gain: Float = 1) {
        self.file = file
        self.gain = gain
        channelCount = file?.channelCount ?? 0
        staged = .allocate(capacity: max(1, Self.framesPerWrite * channelCount))
    }

    deinit {
        staged.deallocate()
    }

    /// Scales the first `frameCount` frames of every channel of `block` by the gain, in place (so
    /// what reads the block next sees what was written), measures them, and appends the file's
    /// channels of them (the first one or two, or as many as the file has).
    public func append(_ block: AudioBuffer, frameCount count: Int) throws(AudioFileError) {
        for channel in 0..<block.channelCount {
            let samples = block[channel]
            if gain != 1 { for i in 0..<count { samples[i] *= gain } }
            for i in 0..<count { peak = max(peak, abs(samples[i])) }
        }
        frameCount += Int64(count)
        guard let file else { return }
        guard block.channelCount >= channelCount else {
            throw AudioFileError(path: file.path, problem: .channelCountMismatch(expected: channelCount, given: block.channelCount))
        }
        var done = 0
        while done < count {
            let chunk = min(Self.framesPerWrite - stagedFrames, count - done)
            for channel in 0..<channelCount {
                let samples = block[channel].baseAddress! + done
                var target = staged + stagedFrames * channelCount + channel
                for frame in 0..<chunk {
                    target.pointee = samples[frame]
                    target += channelCount
                }
            }
            stagedFrames += chunk
            done += chunk
            if stagedFrames == Self.framesPerWrite { try flush() }
        }
    }

    /// The render-to-file loop: appends the blocks `nextBlock` renders until it gives none (the
    /// render has ended; a `RenderLength` decides), or exactly `frames` frames (cut, or padded with
    /// silence), and writes what is gathered (the file is not finished). `afterBlock` gets each
    /// block (the gain applied) and how many of its frames were appended (a stem or a meter reads it
    /// then); `progress` the frames appended so far, every 16384 or so and at the end. When
    /// `isCancelled` turns true between blocks, or anything throws, the writer is cancelled (no file
    /// left under its name). Returns the frames appended, nil when cancelled.
    public func append(blocks nextBlock: () -> AudioBuffer?, frames: Int64? = nil, isCancelled: () -> Bool = { false },
                       progress: (Int64) -> Void = { _ in },
                       afterBlock: (AudioBuffer, Int) throws(AudioFileError) -> Void = { _, _ in }) throws(AudioFileError) -> Int64? {
        var written: Int64 = 0, reported: Int64 = 0
        do throws(AudioFileError) {
            while frames.map({ written < $0 }) ?? true, let block = nextBlock() {
                if isCancelled() {
                    cancel()
                    return nil
                }
                let count = Int(min(Int64(block.frameLength), (frames ?? Int64.max) - written))
                try append(block, frameCount: count)
                try afterBlock(block, count)
                written += Int64(count)
                if written - reported >= 16_384 {
                    progress(written)
                    reported = written
                }
            }
            if let frames, written < frames {
                try appendSilence(frameCount: frames - written)
                written = frames
            }
            try flush()
        } catch {
            cancel()
            throw error
        }
        progress(written)
        return written
    }

    /// Appends `frameCount` frames of silence.
    public func appendSilence(frameCount count: Int64) throws(AudioFileError) {
        frameCount += count
        guard file != nil else { return }
        var remaining = count
        while remaining > 0 {
            let chunk = Int(min(Int64(Self.framesPerWrite - stagedFrames), remaining))
            (staged + stagedFrames * channelCount).initialize(repeating: 0, count: chunk * channelCount)
            stagedFrames += chunk
            remaining -= Int64(chunk)
            if stagedFrames == Self.framesPerWrite { try flush() }
        }
    }

    /// Writes what is gathered.
    public func flush() throws(AudioFileError) {
        guard let file, stagedFrames > 0 else { return }
        let count = stagedFrames
        stagedFrames = 0
        try file.write(interleaved: staged, frameCount: count)
    }

    /// Writes what is gathered and completes the file (see `AudioFileWriter.finish`).
    public func finish() throws(AudioFileError) {
        do throws(AudioFileError) {
            try flush()
        } catch {
            file?.cancel()
            throw error
        }
        try file?.finish()
    }

    /// Abandons the file: nothing is left under its name.
    public func cancel() {
        stagedFrames = 0
        file?.cancel()
    }
}
