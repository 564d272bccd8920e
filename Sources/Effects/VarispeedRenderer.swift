import AudioGraph

/// Plays an `AudioEngine`'s output faster or slower (pitch and tempo together, after AVAudioUnitVarispeed).
///
/// Why this is not a node: the audio graph pushes — every node renders the same frame count each cycle — but
/// a varispeed must pull `rate` × N input frames to produce N. So it sits after the engine, where pulling is
/// possible: call `renderBlock(frameCount:)` where you would call the engine's (a real-time driver) or
/// `renderOffline(frames:into:)` to fill a buffer. It asks the engine for blocks as the conversion needs them,
/// so the engine's sample time advances `rate` times as fast as the output's.
// Why unchecked: driven by one render thread at a time, as the engine it pulls; `rate` goes through the kernel's atomic.
public final class VarispeedRenderer: @unchecked Sendable {
    /// The format produced: the engine's output format.
    public let format: AudioFormat
    private let engine: AudioEngine
    private let kernel: VarispeedKernel
    private let output: AudioBuffer
    private let outputChannels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>

    /// A varispeed at rate 1 over `engine`, which must be started before rendering. Output blocks may be up to
    /// the engine's `maximumFrameCount` frames.
    public init(engine: AudioEngine, quality: VarispeedKernel.Quality = .fastest) throws(VarispeedError) {
        self.engine = engine
        format = engine.outputFormat
        let blockSize = engine.maximumFrameCount
        kernel = try VarispeedKernel(channelCount: format.channelCount, inputBlockSize: blockSize, quality: quality)
        output = AudioBuffer(format: format, frameCapacity: blockSize)
        outputChannels = .allocate(capacity: format.channelCount)
        kernel.pullInput(from: engine)
    }

    deinit { outputChannels.deallocate() }

    /// Playback rate, 0.25...4 (2 = twice as fast, an octave up). Default 1. May change while playing.
    public var rate: Float {
        get { kernel.rate }
        set { kernel.rate = newValue }
    }

    /// Forgets converter state. Call while not rendering (e.g. after `engine.reset()`).
    public func reset() { kernel.reset() }

    /// Renders `frameCount` frames (1...engine.maximumFrameCount) and returns them (valid until the next call),
    /// or nil when the engine is not running or `frameCount` is out of range. Real-time safe.
    public func renderBlock(frameCount: Int) -> AudioBuffer? {
        guard engine.isRunning, frameCount > 0, frameCount <= output.frameCapacity else { return nil }
        output.frameLength = frameCount
        for channel in 0..<format.channelCount { outputChannels[channel] = output[channel].baseAddress! }
        kernel.renderPaddingWithSilence(into: outputChannels, frameCount: frameCount)
        return output
    }

    /// Renders `frames` frames (at most `buffer.frameCapacity`) into `buffer` from frame 0, block by block.
    /// Sets `buffer.frameLength` and returns the frames rendered (fewer if the engine stops).
    @discardableResult
    public func renderOffline(frames: Int, into buffer: AudioBuffer) -> Int {
        let total = max(0, min(frames, buffer.frameCapacity))
        var done = 0
        while done < total, let block = renderBlock(frameCount: min(output.frameCapacity, total - done)) {
            buffer.copy(from: block, frameCount: block.frameLength, toOffset: done)
            done += block.frameLength
        }
        buffer.frameLength = done
        return done
    }
}
