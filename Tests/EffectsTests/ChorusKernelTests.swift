import Effects
import LV2
import XCTest

/// The chorus measured on an impulse and on sines: where its voices read, how the sweep bends pitch.
final class ChorusKernelTests: XCTestCase {
    /// A chorus kernel set as `--fx chorus:…` sets one: the kernel of its effect spec's node.
    private func chorus(voices: Float, rate: Float, depth: Float, wet: Float, waveform: ChorusWaveform = .sine) -> ChorusKernel {
        (EffectSpec.chorus(voices: voices, rate: rate, depth: depth, wetDryMix: wet, waveform: waveform).makeNode() as! ChorusNode).kernel
    }

    func testWithoutDepthEachVoiceIsTheBaseDelay() {
        let output = Signals.processMono(chorus(voices: 1, rate: 1, depth: 0, wet: 100), Signals.impulse(frames: 1000))
        let echo = Int(Double(ChorusKernel.baseDelay) / 1000 * Signals.sampleRate)
        XCTAssertEqual(output[echo], 1, accuracy: 1e-6)
        XCTAssertEqual(output.map(abs).reduce(0, +), 1, accuracy: 1e-5, "one copy, nothing else")
    }

    func testATriangleSweepBendsThePitchDownThenUpByItsSlope() {
        // 8 ms swept up in half a 1 Hz cycle: the delay grows 384 samples in 24 000, so the pitch falls by
        // 1.6 %, then rises by as much while the delay shrinks.
        let kernel = chorus(voices: 1, rate: 1, depth: 8, wet: 100, waveform: .triangle)
        let output = Signals.processMono(kernel, Signals.sine(frequency: 1000, seconds: 1))
        let falling = Signals.dominantFrequency(of: Array(output[2000..<22_000]), low: 960, high: 1040, step: 0.5)
        let rising = Signals.dominantFrequency(of: Array(output[26_000..<46_000]), low: 960, high: 1040, step: 0.5)
        print("chorus triangle 1 Hz, 8 ms: 1000 Hz sounds at \(falling) Hz, then \(rising) Hz")
        XCTAssertEqual(falling, 984, accuracy: 1)
        XCTAssertEqual(rising, 1016, accuracy: 1)
    }

    func testVoicesSpreadAToneAndDryMixPassesTheInput() {
        let tone = Signals.sine(frequency: 1000, seconds: 1)
        let wide = Signals.processMono(chorus(voices: 3, rate: 0.8, depth: 10, wet: 100), tone)
        // Three voices at different pitches beat against each other: the level at exactly 1 kHz falls.
        let centre = Signals.amplitude(of: wide, at: 1000, in: 4800..<48_000)
        print("chorus 3 voices: 1 kHz at \(centre) of 0.5")
        XCTAssertLessThan(centre, 0.45)
        XCTAssertEqual(Signals.processMono(chorus(voices: 3, rate: 0.8, depth: 10, wet: 0), tone), tone)
    }

    func testTheRightChannelSweepsAQuarterCycleBehind() {
        let kernel = chorus(voices: 1, rate: 1, depth: 8, wet: 100, waveform: .triangle)
        kernel.prepare(sampleRate: Signals.sampleRate, channelCount: 2)
        let tone = Signals.sine(frequency: 1000, seconds: 1)
        var channels = [tone, tone]
        Signals.process(kernel, &channels)
        // From a quarter to half a cycle the left delay still grows (pitch down) while the right one, a quarter
        // cycle on, shrinks (pitch up).
        let left = Signals.dominantFrequency(of: Array(channels[0][13_000..<23_000]), low: 960, high: 1040, step: 1)
        let right = Signals.dominantFrequency(of: Array(channels[1][13_000..<23_000]), low: 960, high: 1040, step: 1)
        XCTAssertLessThan(left, 995)
        XCTAssertGreaterThan(right, 1005)
    }
}
