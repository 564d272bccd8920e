import AllocationCounter
import AudioGraph
import Effects
import LV2
import XCTest

/// Effects as graph nodes: rendering through an engine, changing parameters while running, allocation-free.
final class EffectNodeGraphTests: XCTestCase {
    private let format = AudioFormat(sampleRate: 48_000, channelCount: 2)

    /// The largest |sample| of `channel`, without allocating (callable inside the counted loop).
    private func peakLevel(_ buffer: AudioBuffer, channel: Int) -> Float {
        let samples = buffer[channel]
        var peak: Float = 0
        for index in 0..<samples.count { peak = max(peak, abs(samples[index])) }
        return peak
    }

    private func startedEngine(_ chain: [AudioNode], source: AudioNode) throws -> AudioEngine {
        let engine = AudioEngine()
        for node in [source] + chain { engine.attach(node) }
        engine.connect([source] + chain + [engine.mainMixerNode])
        try engine.enableManualRenderingMode(format: format, maximumFrameCount: 512)
        try engine.start()
        return engine
    }

    func testEveryEffectInOneChainRendersWithoutAllocating() throws {
        let spec = try EffectChainSpec(parsing: """
            eq:lowshelf,120,+3;eq:parametric,2000,-4,bw=0.5;distortion:overdrive,pregain=6,wet=30;\
            compressor:-18,3;delay:180,40,wet=25;chorus:4,0.5,8,wet=30;reverb:large-hall,wet=30;limiter:-1
            """)
        let tone = ToneGeneratorNode(frequency: 220, amplitude: 0.9, format: format)
        let engine = try startedEngine(spec.makeNodes(), source: tone)
        let varispeed = try VarispeedRenderer(engine: engine)
        varispeed.rate = 1.5
        // Warm-up: the first cycles may fill the runtime's lazily made caches.
        for _ in 0..<4 { _ = varispeed.renderBlock(frameCount: 512) }

        var peak: Float = 0
        var rendered = 0
        seqplay_alloc_count_begin()
        for cycle in 0..<(48_000 * 5 / 512) {
            if cycle == 200 { varispeed.rate = 0.75 }
            guard let block = varispeed.renderBlock(frameCount: 512) else { break }
            rendered += block.frameLength
            for channel in 0..<block.channelCount { peak = max(peak, peakLevel(block, channel: channel)) }
        }
        let counts = seqplay_alloc_count_end()
        XCTAssertEqual(rendered, 48_000 * 5 / 512 * 512)
        XCTAssertGreaterThan(peak, 0.1, "sound came through")
        XCTAssertLessThanOrEqual(peak, powf(10, -1 / 20) * 1.001, "the limiter's ceiling holds at the end")
        XCTAssertEqual(counts.allocations, 0, "allocations while rendering \(rendered) frames through every effect")
        XCTAssertEqual(counts.frees, 0)
    }

    func testParameterChangesWhileRunningReachTheRenderThreadWithoutAllocating() throws {
        let eq = EQNode(numberOfBands: 2)
        let reverb = ReverbNode(preset: .smallRoom, wetDryMix: 0)
        let limiter = PeakLimiterNode()
        let tone = ToneGeneratorNode(frequency: 1000, amplitude: 0.5, format: format)
        let engine = try startedEngine([eq, reverb, limiter], source: tone)
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 512) }

        // Parameters are set off the counted region (the setter's thread may allocate); the cycles after the
        // change, which pick the new values up and recompute coefficients, are counted.
        seqplay_alloc_count_begin()
        var before: Float = 0
        for _ in 0..<20 { before = peakLevel(engine.renderBlock(frameCount: 512)!, channel: 0) }
        let countsBefore = seqplay_alloc_count_end()
        eq.bands[0].filterType = .parametric
        eq.bands[0].frequency = 1000
        eq.bands[0].gain = -12
        reverb.preset = .cathedral
        limiter.ceiling = -3
        seqplay_alloc_count_begin()
        var after: Float = 0
        for _ in 0..<20 { after = peakLevel(engine.renderBlock(frameCount: 512)!, channel: 0) }
        let counts = seqplay_alloc_count_end()
        XCTAssertEqual(countsBefore.allocations, 0)
        XCTAssertEqual(before, 0.5, accuracy: 0.01)
        XCTAssertEqual(20 * log10(after / before), -12, accuracy: 0.5)
        XCTAssertEqual(counts.allocations, 0)
    }

    func testVarispeedRendererPullsTheEngineAtTheRate() throws {
        let tone = ToneGeneratorNode(frequency: 440, amplitude: 0.5, format: format)
        let engine = try startedEngine([], source: tone)
        let varispeed = try VarispeedRenderer(engine: engine)
        varispeed.rate = 2
        let buffer = AudioBuffer(format: format, frameCapacity: 24_000)
        XCTAssertEqual(varispeed.renderOffline(frames: 24_000, into: buffer), 24_000)
        // 24 000 output frames at rate 2 consumed about 48 000 engine frames (plus the converter's look-ahead).
        XCTAssertEqual(Double(engine.sampleTime), 48_000, accuracy: 2048)
        let frequency = (0..<100).map { 870 + 0.2 * Double($0) }.max { a, b in
            Signals.amplitude(of: Array(buffer[0]), at: a, in: 4000..<24_000)
                < Signals.amplitude(of: Array(buffer[0]), at: b, in: 4000..<24_000)
        }!
        XCTAssertEqual(frequency, 880, accuracy: 0.5)
    }
}
