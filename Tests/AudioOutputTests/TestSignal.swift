import AllocationCounter
import AudioGraph

/// The deterministic signal the output tests play: an impulse on the first frame (an unambiguous
/// onset for alignment) plus two sines at unrelated frequencies (no short period to mis-align on).
enum TestSignal {
    /// An engine rendering the test signal at `format`, not started.
    static func makeEngine(format: AudioFormat) -> AudioEngine {
        let engine = AudioEngine()
        let mono = AudioFormat(sampleRate: format.sampleRate, channelCount: 1)
        let sources = [
            ToneGeneratorNode(name: "impulse", waveform: .impulse, amplitude: 0.9, format: mono),
            ToneGeneratorNode(name: "low", frequency: 440, amplitude: 0.3, format: mono),
            ToneGeneratorNode(name: "high", frequency: 1234.5, amplitude: 0.2, format: mono),
        ]
        for source in sources {
            engine.attach(source)
            engine.connect(source, to: engine.mainMixerNode)
        }
        return engine
    }

    /// The first `frames` frames of the test signal rendered offline, interleaved.
    static func renderOffline(format: AudioFormat, frames: Int) throws -> [Float] {
        let engine = makeEngine(format: format)
        try engine.enableManualRenderingMode(format: format, maximumFrameCount: 4096)
        try engine.start()
        let buffer = AudioBuffer(format: format, frameCapacity: frames)
        try engine.renderOffline(frames: frames, into: buffer)
        var interleaved = [Float](repeating: 0, count: frames * format.channelCount)
        for channel in 0..<format.channelCount {
            for (frame, sample) in buffer[channel].enumerated() {
                interleaved[frame * format.channelCount + channel] = sample
            }
        }
        return interleaved
    }
}

/// A tap that counts heap allocations on the render thread between two render cycles: counting
/// starts at cycle `firstCycle` (steady state) and stops `cycleCount` cycles later.
final class RenderThreadAllocationProbe: ProcessingTap {
    private let firstCycle: Int
    private let lastCycle: Int
    private var cycle = 0
    /// Allocations counted, once the last cycle has passed (nil before).
    private(set) var allocations: Int?

    init(firstCycle: Int, cycleCount: Int) {
        self.firstCycle = firstCycle
        lastCycle = firstCycle + cycleCount
    }

    func process(_ buffer: AudioBuffer, context: RenderContext) {
        if cycle == firstCycle { seqplay_alloc_count_begin() }
        if cycle == lastCycle { allocations = seqplay_alloc_count_end().allocations }
        cycle += 1
    }
}
