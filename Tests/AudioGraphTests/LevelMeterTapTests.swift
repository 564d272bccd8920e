import AudioGraph
import Foundation
import XCTest

final class LevelMeterTapTests: XCTestCase {
    /// A started engine: a mono sine of peak `amplitude` → main mixer, metered after the mixer.
    private func meteredTone(amplitude: Float) throws -> (AudioEngine, ToneGeneratorNode, LevelMeterTap) {
        let tone = ToneGeneratorNode(frequency: 441, amplitude: amplitude)
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        let meter = LevelMeterTap()
        engine.mainMixerNode.installTap(meter, at: .output(bus: 0))
        try engine.start()
        return (engine, tone, meter)
    }

    private func render(_ engine: AudioEngine, seconds: Double) {
        for _ in 0..<Int(seconds * 44_100) / 441 { _ = engine.renderBlock(frameCount: 441) }
    }

    func testASteadySineReadsItsPeakAndRMSInDBFS() throws {
        // 0.5 into a centred stereo mixer: each side is 0.5 × cos(π/4).
        let (engine, _, meter) = try meteredTone(amplitude: 0.5)
        render(engine, seconds: 3)
        let side = 0.5 * Float(cos(Double.pi / 4))
        XCTAssertEqual(meter.channelCount, 2)
        for channel in 0..<2 {
            let level = meter.level(ofChannel: channel)
            XCTAssertEqual(level.peak, 20 * log10(side), accuracy: 0.01)
            XCTAssertEqual(level.heldPeak, 20 * log10(side), accuracy: 0.01)
            XCTAssertEqual(level.rms, 20 * log10(side / Float(2).squareRoot()), accuracy: 0.02)
        }
    }

    func testThePeakFallsAtItsRateWhileTheHeldPeakWaitsThenFalls() throws {
        let (engine, tone, meter) = try meteredTone(amplitude: 0.5)
        render(engine, seconds: 1)
        let start = meter.level(ofChannel: 0).peak
        let startRMS = meter.level(ofChannel: 0).rms
        tone.amplitude = 0
        render(engine, seconds: 1)
        let afterOne = meter.level(ofChannel: 0)
        XCTAssertEqual(afterOne.peak, start - 20, accuracy: 0.5, "20 dB/s fall")
        XCTAssertEqual(afterOne.heldPeak, start, accuracy: 0.001, "held for 1.5 s")
        // The mean square decays by e^(−1 s / 0.3 s): 10·log10(e)/0.3 ≈ 14.5 dB.
        XCTAssertEqual(afterOne.rms, startRMS - 10 * log10(Float(M_E)) / 0.3, accuracy: 0.1)
        render(engine, seconds: 1)
        let afterTwo = meter.level(ofChannel: 0)
        XCTAssertEqual(afterTwo.heldPeak, start - 10, accuracy: 0.5, "0.5 s of falling after the hold")
        XCTAssertEqual(afterTwo.peak, start - 40, accuracy: 0.5)
    }

    func testSilenceAndMissingChannelsReadMinusInfinity() throws {
        let (engine, _, meter) = try meteredTone(amplitude: 0)
        render(engine, seconds: 0.1)
        XCTAssertEqual(meter.level(ofChannel: 1).rms, -.infinity)
        XCTAssertEqual(meter.level(ofChannel: 5).peak, -.infinity)
    }

    func testAnotherThreadReadsLevelsWhileTheEngineRenders() throws {
        let (engine, _, meter) = try meteredTone(amplitude: 0.5)
        let reader = Thread {
            while !Thread.current.isCancelled {
                let peak = meter.level(ofChannel: 0).peak
                precondition(peak == -.infinity || peak <= 0, "a level above full scale")
            }
        }
        reader.start()
        render(engine, seconds: 5)
        reader.cancel()
        XCTAssertGreaterThan(meter.level(ofChannel: 0).peak, -10)
    }
}
