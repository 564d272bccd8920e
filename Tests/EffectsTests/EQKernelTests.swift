import Effects
import XCTest

final class EQKernelTests: XCTestCase {
    private let testFrequencies: [Double] = [40, 100, 250, 630, 1000, 1600, 4000, 8000, 16000]

    /// Measured gain of `kernel` at `frequency`, in dB: a sine through it, compared after the transient.
    private func measuredGain(_ kernel: EQKernel, at frequency: Double) -> Double {
        kernel.prepare(sampleRate: Signals.sampleRate, channelCount: 1)
        let input = Signals.sine(frequency: frequency, seconds: 0.6)
        var channels = [input]
        Signals.process(kernel, &channels)
        let window = 14_400..<input.count
        return 20 * log10(Signals.amplitude(of: channels[0], at: frequency, in: window)
                              / Signals.amplitude(of: input, at: frequency, in: window))
    }

    private func kernel(_ type: EQFilterType, frequency: Float, gain: Float = 0, bandwidth: Float = 1) -> EQKernel {
        let kernel = EQKernel(bandCount: 1)
        kernel.bands[0].filterType = type
        kernel.bands[0].frequency = frequency
        kernel.bands[0].gain = gain
        kernel.bands[0].bandwidth = bandwidth
        return kernel
    }

    func testEveryFilterTypeMatchesItsAnalyticResponseWithinHalfADecibel() {
        var worst = 0.0
        for type in EQFilterType.allCases {
            let eq = kernel(type, frequency: 1000, gain: 9, bandwidth: 1.5)
            let design = eq.bands[0].coefficients(sampleRate: Signals.sampleRate)
            for frequency in testFrequencies {
                let expected = design.magnitudeDecibels(at: frequency, sampleRate: Signals.sampleRate)
                // Deep notch/stop-band values are not meaningful to 0.5 dB; compare down to −40 dB.
                guard expected > -40 else { continue }
                let error = abs(measuredGain(eq, at: frequency) - expected)
                worst = max(worst, error)
                XCTAssertLessThan(error, 0.5, "\(type) at \(frequency) Hz")
            }
        }
        print("EQ: largest |measured − analytic| over all types and test frequencies: \(worst) dB")
    }

    func testDesignPointsOfTheCookbookShapes() {
        // Parametric: the full gain at the centre, none far away.
        XCTAssertEqual(measuredGain(kernel(.parametric, frequency: 1000, gain: 6), at: 1000), 6, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.parametric, frequency: 1000, gain: 6), at: 40), 0, accuracy: 0.5)
        // Shelves: the full gain deep in the shelf, half of it at the corner, none on the far side.
        XCTAssertEqual(measuredGain(kernel(.lowShelf, frequency: 120, gain: 3), at: 20), 3, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.lowShelf, frequency: 120, gain: 3), at: 120), 1.5, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.lowShelf, frequency: 120, gain: 3), at: 4000), 0, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.highShelf, frequency: 5000, gain: -6), at: 18000), -6, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.highShelf, frequency: 5000, gain: -6), at: 200), 0, accuracy: 0.5)
        // Butterworth passes: −3 dB at the corner, flat in the pass band, 12 dB/octave beyond.
        XCTAssertEqual(measuredGain(kernel(.lowPass, frequency: 1000), at: 1000), -3.01, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.lowPass, frequency: 1000), at: 100), 0, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.lowPass, frequency: 1000), at: 4000), -24, accuracy: 1.0)
        XCTAssertEqual(measuredGain(kernel(.highPass, frequency: 1000), at: 1000), -3.01, accuracy: 0.5)
        XCTAssertEqual(measuredGain(kernel(.highPass, frequency: 1000), at: 10000), 0, accuracy: 0.5)
        // Band pass: 0 dB at the centre; band stop: a deep notch there.
        XCTAssertEqual(measuredGain(kernel(.bandPass, frequency: 1000), at: 1000), 0, accuracy: 0.5)
        XCTAssertLessThan(measuredGain(kernel(.bandPass, frequency: 1000), at: 8000), -12)
        XCTAssertLessThan(measuredGain(kernel(.bandStop, frequency: 1000), at: 1000), -40)
        // Resonant low pass with a narrow bandwidth peaks above 0 dB at the corner.
        XCTAssertGreaterThan(measuredGain(kernel(.resonantLowPass, frequency: 1000, bandwidth: 0.3), at: 1000), 6)
    }

    func testGlobalGainAndBypass() {
        let eq = kernel(.parametric, frequency: 1000, gain: 12)
        eq.globalGain = -6
        XCTAssertEqual(measuredGain(eq, at: 1000), 6, accuracy: 0.5)
        eq.bands[0].bypass = true
        XCTAssertEqual(measuredGain(eq, at: 1000), -6, accuracy: 0.5)
    }

    func testParameterChangeWhilePlayingTakesEffectInTheNextBlock() {
        let eq = kernel(.parametric, frequency: 1000, gain: 0)
        eq.prepare(sampleRate: Signals.sampleRate, channelCount: 1)
        var first = [Signals.sine(frequency: 1000, seconds: 0.3)]
        Signals.process(eq, &first)
        eq.bands[0].gain = -12
        var second = [Signals.sine(frequency: 1000, seconds: 0.3)]
        Signals.process(eq, &second)
        let window = 4800..<14_400
        XCTAssertEqual(Signals.amplitude(of: first[0], at: 1000, in: window), 0.5, accuracy: 0.01)
        XCTAssertEqual(20 * log10(Signals.amplitude(of: second[0], at: 1000, in: window) / 0.5), -12, accuracy: 0.5)
    }

    func testParametersAreClampedToTheirRanges() {
        let eq = EQKernel(bandCount: 40)
        XCTAssertEqual(eq.bands.count, 16)
        eq.bands[0].bandwidth = 100
        eq.bands[0].gain = .nan
        XCTAssertEqual(eq.bands[0].bandwidth, 5)
        XCTAssertEqual(eq.bands[0].gain, -96)
    }
}
