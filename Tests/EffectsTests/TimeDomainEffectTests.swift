import Effects
import XCTest

/// Delay, distortion and compressor, measured on impulses, sines and constant-level signals.
final class TimeDomainEffectTests: XCTestCase {
    func testDelayPutsTheEchoAtTheSetTimeAndFeedbackRepeatsIt() {
        let delay = DelayKernel()
        delay.delayTime = 0.25
        delay.feedback = 50
        delay.wetDryMix = 100
        delay.lowPassCutoff = 24_000
        let output = Signals.processMono(delay, Signals.impulse(frames: 30_000))
        let first = output[0..<18_000].indices.max { abs(output[$0]) < abs(output[$1]) }!
        let second = output[18_000...].indices.max { abs(output[$0]) < abs(output[$1]) }!
        print("Delay 0.25 s at 48 kHz: first echo at frame \(first), second at \(second)")
        XCTAssertEqual(first, 12_000)
        XCTAssertEqual(second, 24_000)
        XCTAssertEqual(output[second] / output[first], 0.5, accuracy: 0.05)
        XCTAssertLessThan(output[0..<11_999].map(abs).max()!, 1e-6, "nothing before the echo at 100 % wet")
    }

    func testDelayLowPassDarkensTheEchoAndDryMixPassesInput() {
        let delay = DelayKernel()
        delay.delayTime = 0.01
        delay.feedback = 0
        delay.lowPassCutoff = 500
        let tone = Signals.sine(frequency: 8000, seconds: 0.2)
        let output = Signals.processMono(delay, tone)
        XCTAssertLessThan(Signals.amplitude(of: output, at: 8000, in: 2400..<9600), 0.05)
        delay.wetDryMix = 0
        XCTAssertEqual(Signals.processMono(delay, tone), tone)
    }

    func testDistortionModesBoundTheirOutputAndAddHarmonics() {
        let loud = Signals.sine(frequency: 1000, seconds: 0.1, amplitude: 1)
        for mode in DistortionMode.allCases {
            let distortion = DistortionKernel()
            distortion.mode = mode
            distortion.preGain = 20
            distortion.wetDryMix = 100
            let output = Signals.processMono(distortion, loud)
            XCTAssertLessThanOrEqual(output.map(abs).max()!, 1.0001, "\(mode)")
            let harmonics = (2...5).map { Signals.amplitude(of: output, at: 1000 * Double($0), in: 0..<4800) }
            XCTAssertGreaterThan(harmonics.max()!, 0.05, "\(mode) adds harmonics")
        }
        let clean = DistortionKernel()
        clean.wetDryMix = 0
        XCTAssertEqual(Signals.processMono(clean, loud), loud)
    }

    func testDistortionDriveIncreasesHarmonicContent() {
        func thirdHarmonic(preGain: Float) -> Double {
            let distortion = DistortionKernel()
            distortion.preGain = preGain
            distortion.wetDryMix = 100
            let output = Signals.processMono(distortion, Signals.sine(frequency: 1000, seconds: 0.1))
            return Signals.amplitude(of: output, at: 3000, in: 0..<4800)
                / Signals.amplitude(of: output, at: 1000, in: 0..<4800)
        }
        XCTAssertGreaterThan(thirdHarmonic(preGain: 20), 10 * thirdHarmonic(preGain: -12))
    }

    /// A ±level square wave: constant magnitude, so the compressor's steady state is its static curve.
    private func square(level: Float, frames: Int) -> [Float] {
        (0..<frames).map { ($0 / 24) % 2 == 0 ? level : -level }
    }

    func testCompressorSettlesOnItsStaticCurve() {
        let compressor = DynamicsProcessorKernel()
        compressor.threshold = -20
        compressor.ratio = 4
        compressor.attackTime = 0.002
        compressor.releaseTime = 0.05
        let output = Signals.processMono(compressor, square(level: 1, frames: 24_000))
        let settled = 20 * log10(Double(abs(output[23_999])))
        print("Compressor −20 dB, 4:1, 0 dBFS in: \(settled) dBFS out (design −15)")
        XCTAssertEqual(settled, -15, accuracy: 0.1)
        compressor.makeUpGain = 5
        let lifted = Signals.processMono(compressor, square(level: 1, frames: 24_000))
        XCTAssertEqual(20 * log10(Double(abs(lifted[23_999]))), -10, accuracy: 0.1)
        let quiet = Signals.processMono(DynamicsProcessorKernel(), square(level: 0.05, frames: 4800))
        XCTAssertEqual(quiet, square(level: 0.05, frames: 4800), "below threshold: untouched")
    }

    func testCompressorAttackTimeSetsHowFastGainFalls() {
        let compressor = DynamicsProcessorKernel()
        compressor.threshold = -40
        compressor.ratio = 50
        compressor.attackTime = 0.01
        let output = Signals.processMono(compressor, square(level: 1, frames: 9600))
        // The envelope rises as 1 − e^(−t/attack); the output follows the static curve of that level.
        func expectedDecibels(afterFrames frames: Int) -> Double {
            let envelope = Float(1 - exp(-Double(frames) / (0.01 * Signals.sampleRate)))
            return Double(DynamicsProcessorKernel.gainChange(level: 20 * log10(envelope), threshold: -40, ratio: 50,
                                                             kneeWidth: 0, makeUpGain: 0))
        }
        for frame in [240, 480, 960, 4800] {
            XCTAssertEqual(20 * log10(Double(abs(output[frame]))), expectedDecibels(afterFrames: frame + 1),
                           accuracy: 0.1, "frame \(frame)")
        }
    }

    func testSoftKneeCurveIsContinuousAndMeetsTheHardKneeOutsideIt() {
        let hard = DynamicsProcessorKernel.gainChange(level: -5, threshold: -20, ratio: 4, kneeWidth: 0, makeUpGain: 0)
        let soft = DynamicsProcessorKernel.gainChange(level: -5, threshold: -20, ratio: 4, kneeWidth: 10, makeUpGain: 0)
        XCTAssertEqual(hard, -11.25, accuracy: 1e-5)
        XCTAssertEqual(soft, hard, accuracy: 1e-5)
        let below = DynamicsProcessorKernel.gainChange(level: -25.0001, threshold: -20, ratio: 4, kneeWidth: 10,
                                                       makeUpGain: 0)
        XCTAssertEqual(below, 0, accuracy: 1e-3)
        let atThreshold = DynamicsProcessorKernel.gainChange(level: -20, threshold: -20, ratio: 4, kneeWidth: 10,
                                                             makeUpGain: 0)
        XCTAssertLessThan(atThreshold, 0)
        XCTAssertGreaterThan(atThreshold, -10 * 0.75)
    }
}
