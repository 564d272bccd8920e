import AudioGraph

/// A source node that brings audio made at another sample rate into an engine: it plays an inner `AudioEngine`
/// running at its own rate, resampled (libsamplerate, through `VarispeedKernel`) to this node's `sampleRate`.
///
/// What it is for: an engine runs at one sample rate (every node renders the same frame count per cycle), so a
/// `ConverterNode` cannot change the rate. When part of the sound exists at another rate — a backing track, or an
/// `AudioPlayerNode` holding 48 kHz buffers, to be mixed into a 44.1 kHz main mix — build that part as its own
/// engine at its own rate and put this node where it joins the outer engine.
///
/// ```swift
/// let inner = AudioEngine()                                   // 1. the graph at the other rate
/// let player = AudioPlayerNode(format: AudioFormat(sampleRate: 48_000, channelCount: 2))
/// inner.attach(player)
/// inner.connect(player, to: inner.mainMixerNode)
/// try inner.enableManualRenderingMode(format: AudioFormat(sampleRate: 48_000, channelCount: 2), maximumFrameCount: 512)
/// let backing = SampleRateConverterNode(playing: inner, at: 44_100)   // 2. hand its engine to the node
/// outer.attach(backing)                                       // 3. a source like any other
/// outer.connect(backing, to: outer.mainMixerNode)
/// try outer.start()                                           // starts `inner` too
/// ```
///
/// The node owns the pulling of its inner engine: don't render that engine elsewhere (no `renderOffline`, no
/// real-time driver). Each outer cycle of N frames renders about N × inner rate / this rate inner frames, in
/// blocks of the inner engine's `maximumFrameCount`. Preparing the outer engine makes the converter and starts
/// the inner engine; rendering neither allocates nor locks. The converter delays the sound by a few frames.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class SampleRateConverterNode: AudioNode, @unchecked Sendable {
    /// The engine whose output this node plays.
    public let innerEngine: AudioEngine
    /// The sample rate this node produces (the outer engine's).
    public let sampleRate: Double
    /// The libsamplerate converter used.
    public let quality: VarispeedKernel.Quality

    private var kernel: VarispeedKernel?
    private var outputChannels = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: 0)

    /// A node producing `innerEngine`'s output at `sampleRate` Hz, with its channel count. The two rates may
    /// differ by up to a factor of 4 either way.
    public init(name: String? = nil, playing innerEngine: AudioEngine, at sampleRate: Double,
                quality: VarispeedKernel.Quality = .medium) {
        self.innerEngine = innerEngine
        self.sampleRate = sampleRate
        self.quality = quality
        super.init(name: name)
    }

    deinit { outputChannels.deallocate() }

    /// The format produced: `sampleRate`, with the inner engine's channel count.
    public var format: AudioFormat {
        AudioFormat(sampleRate: sampleRate, channelCount: innerEngine.outputFormat.channelCount)
    }

    /// Inner frames consumed per frame produced: inner rate / `sampleRate`.
    public var conversionRatio: Double { innerEngine.outputFormat.sampleRate / sampleRate }

    public override var numberOfInputs: Int { 0 }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { format }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        let rate = Float(conversionRatio)
        guard VarispeedKernel.rateRange.contains(rate) else {
            throw RatioOutOfRange(innerSampleRate: innerEngine.outputFormat.sampleRate, sampleRate: sampleRate)
        }
        try innerEngine.start()
        let kernel = try VarispeedKernel(channelCount: format.channelCount,
                                         inputBlockSize: innerEngine.maximumFrameCount, quality: quality)
        kernel.rate = rate
        kernel.pullInput(from: innerEngine)
        self.kernel = kernel
        outputChannels.deallocate()
        outputChannels = .allocate(capacity: format.channelCount)
    }

    /// Forgets the converter's buffered audio. The inner engine keeps its own state: reset it separately.
    public override func reset() { kernel?.reset() }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        guard let kernel else {
            for channel in 0..<output.channelCount { output[channel].update(repeating: 0) }
            return
        }
        for channel in 0..<outputChannels.count { outputChannels[channel] = output[channel].baseAddress! }
        kernel.renderPaddingWithSilence(into: outputChannels, frameCount: context.frameCount)
    }

    /// `prepare` refused: the two rates are further apart than the converter's 1:4…4:1.
    public struct RatioOutOfRange: Error, CustomStringConvertible {
        public let innerSampleRate: Double
        public let sampleRate: Double
        public var description: String {
            "cannot convert \(innerSampleRate) Hz to \(sampleRate) Hz: the rates may differ by at most a factor of 4"
        }
    }
}
