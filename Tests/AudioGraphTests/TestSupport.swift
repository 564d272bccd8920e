import AudioGraph

/// Root mean square of the first `frameLength` samples of `channel`.
func rms(_ buffer: AudioBuffer, channel: Int) -> Float {
    let samples = buffer[channel]
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
}

/// A modify tap that scales every sample by `gain`, counting its lifecycle calls.
final class GainTap: ProcessingTap {
    let gain: Float
    private(set) var prepareCalls = 0
    private(set) var unprepareCalls = 0
    private(set) var preparedFormat: AudioFormat?
    private(set) var preparedMaximumFrameCount = 0

    init(gain: Float) { self.gain = gain }

    func prepare(format: AudioFormat, maximumFrameCount: Int) throws {
        prepareCalls += 1
        preparedFormat = format
        preparedMaximumFrameCount = maximumFrameCount
    }

    func process(_ buffer: AudioBuffer, context: RenderContext) {
        for channel in 0..<buffer.channelCount {
            let samples = buffer[channel]
            for i in samples.indices { samples[i] *= gain }
        }
    }

    func unprepare() { unprepareCalls += 1 }
}

/// An engine in manual rendering mode at `format` with `nodes` attached.
func makeOfflineEngine(format: AudioFormat = .standard, maximumFrameCount: Int = 512,
                       attaching nodes: [AudioNode]) throws -> AudioEngine {
    let engine = AudioEngine()
    for node in nodes { engine.attach(node) }
    try engine.enableManualRenderingMode(format: format, maximumFrameCount: maximumFrameCount)
    return engine
}
