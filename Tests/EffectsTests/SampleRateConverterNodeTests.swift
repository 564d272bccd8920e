import AllocationCounter
import AudioGraph
import Effects
import Foundation
import XCTest

/// A 48 kHz inner engine played through a SampleRateConverterNode into a 44.1 kHz outer engine.
final class SampleRateConverterNodeTests: XCTestCase {
    private let innerFormat = AudioFormat(sampleRate: 48_000, channelCount: 2)
    private let outerFormat = AudioFormat(sampleRate: 44_100, channelCount: 2)
    private let amplitude: Float = 0.5

    /// An inner engine at 48 kHz playing a 1 kHz sine in blocks of `innerBlockSize`, and an outer engine at
    /// 44.1 kHz (started) whose main mixer takes it through a SampleRateConverterNode.
    private func makeEngines(innerBlockSize: Int = 64) throws -> (inner: AudioEngine, outer: AudioEngine,
                                                                 node: SampleRateConverterNode) {
        let inner = AudioEngine()
        let tone = ToneGeneratorNode(frequency: 1000, amplitude: amplitude, format: innerFormat)
        inner.attach(tone)
        inner.connect(tone, to: inner.mainMixerNode)
        try inner.enableManualRenderingMode(format: innerFormat, maximumFrameCount: innerBlockSize)

        let outer = AudioEngine()
        let node = SampleRateConverterNode(name: "48 kHz part", playing: inner, at: outerFormat.sampleRate)
        outer.attach(node)
        outer.connect(node, to: outer.mainMixerNode)
        try outer.enableManualRenderingMode(format: outerFormat, maximumFrameCount: 512)
        try outer.start()
        return (inner, outer, node)
    }

    /// Frequency of `samples` (at `sampleRate`) from its first to its last rising zero crossing, each placed by
    /// linear interpolation.
    private func zeroCrossingFrequency(_ samples: ArraySlice<Float>, sampleRate: Double) -> Double {
        var crossings: [Double] = []
        for n in samples.indices.dropFirst() where samples[n - 1] < 0 && samples[n] >= 0 {
            let fraction = Double(-samples[n - 1] / (samples[n] - samples[n - 1]))
            crossings.append(Double(n - 1) + fraction)
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * sampleRate / (last - first)
    }

    private func rmsLevel(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    func testA48kHzSineComesOutAt44_1kHzWithItsPitchAndLevel() throws {
        let (_, outer, node) = try makeEngines()
        XCTAssertEqual(node.format, outerFormat)
        let buffer = AudioBuffer(format: outerFormat, frameCapacity: 88_200)
        XCTAssertEqual(try outer.renderOffline(frames: 88_200, into: buffer), 88_200)

        for channel in 0..<2 {
            let steady = Array(buffer[channel])[4_410..<88_200]
            let frequency = zeroCrossingFrequency(steady, sampleRate: outerFormat.sampleRate)
            let inputLevel = Double(amplitude) / 2.0.squareRoot()
            let levelChange = 20 * log10(rmsLevel(steady) / inputLevel)
            print("SampleRateConverterNode: 1000 Hz at 48 kHz → \(frequency) Hz at 44.1 kHz, level \(levelChange) dB")
            XCTAssertEqual(frequency, 1000, accuracy: 1)
            XCTAssertEqual(levelChange, 0, accuracy: 0.1)
        }
    }

    func testOuterFramesConsumeInnerFramesAtTheRateRatio() throws {
        let (inner, outer, node) = try makeEngines()
        XCTAssertEqual(node.conversionRatio, 48_000.0 / 44_100.0)
        let buffer = AudioBuffer(format: outerFormat, frameCapacity: 441_000)

        XCTAssertEqual(try outer.renderOffline(frames: 44_100, into: buffer), 44_100)
        let afterOneSecond = inner.sampleTime
        XCTAssertEqual(try outer.renderOffline(frames: 441_000, into: buffer), 441_000)
        let consumedInTenSeconds = inner.sampleTime - afterOneSecond

        let lead = Double(afterOneSecond) - 48_000
        print("SampleRateConverterNode: 44100 outer frames took \(afterOneSecond) inner frames (\(lead) ahead); "
            + "the next 441000 took \(consumedInTenSeconds) (480000 expected)")
        // What the converter reads ahead: its filter's look-ahead plus at most one partly used 64-frame block.
        XCTAssertGreaterThanOrEqual(lead, 0)
        XCTAssertLessThanOrEqual(lead, 256)
        // Once running, consumption follows the ratio to within one inner block.
        XCTAssertEqual(Double(consumedInTenSeconds), 480_000, accuracy: 64)
    }

    func testRenderingAllocatesNothingAfterWarmUp() throws {
        let (_, outer, _) = try makeEngines(innerBlockSize: 512)
        // Warm-up: the first cycles may fill the runtime's lazily made caches.
        for _ in 0..<4 { _ = outer.renderBlock(frameCount: 512) }

        var peak: Float = 0
        var rendered = 0
        seqplay_alloc_count_begin()
        for _ in 0..<(44_100 * 3 / 512) {
            guard let block = outer.renderBlock(frameCount: 512) else { break }
            rendered += block.frameLength
            let samples = block[0]
            for i in 0..<samples.count { peak = max(peak, abs(samples[i])) }
        }
        let counts = seqplay_alloc_count_end()
        XCTAssertEqual(rendered, 44_100 * 3 / 512 * 512)
        XCTAssertEqual(peak, amplitude, accuracy: 0.02, "the sine came through")
        XCTAssertEqual(counts.allocations, 0, "allocations while rendering \(rendered) frames through the node")
        XCTAssertEqual(counts.frees, 0)
    }

    func testRatesFurtherApartThanFourToOneAreRefusedAtStart() throws {
        let inner = AudioEngine()
        try inner.enableManualRenderingMode(format: AudioFormat(sampleRate: 192_000, channelCount: 2), maximumFrameCount: 64)
        let outer = AudioEngine()
        let node = SampleRateConverterNode(name: "192 kHz part", playing: inner, at: 22_050)
        outer.attach(node)
        outer.connect(node, to: outer.outputNode)
        try outer.enableManualRenderingMode(format: AudioFormat(sampleRate: 22_050, channelCount: 2), maximumFrameCount: 64)
        XCTAssertThrowsError(try outer.start()) { error in
            XCTAssertEqual(error as? AudioEngineError, .preparationFailed(
                node: "192 kHz part",
                reason: "cannot convert 192000.0 Hz to 22050.0 Hz: the rates may differ by at most a factor of 4"))
        }
    }
}
