@testable import LiveInput
import TestSupport
import XCTest

/// The clock model of live input: the monotonic → sample time line follows a sound card that runs
/// off the system clock, whatever the render thread's wake-up jitter.
final class LiveClockTests: XCTestCase {
    /// Simulates `minutes` of a card running `ppm` off the system clock, rendering 256-frame periods
    /// whose render thread wakes 0-3 ms late, the control thread updating once a second; returns the
    /// largest error (in samples) of the mapped sample time, and the error a line anchored once at
    /// the first period would have at the end.
    private func simulate(ppm: Double, minutes: Double, seed: UInt64,
                          stalled: (Double) -> Bool = { _ in false }) -> (worst: Double, anchoredOnce: Double, ppm: Double) {
        let rate = 48_000.0, period = 256
        let clock = LiveClock(sampleRate: rate, periodFrames: period)
        var random = SeededGenerator(seed: seed)
        let start: UInt64 = 5_000_000_000
        let cardRate = rate * (1 + ppm * 1e-6)
        /// The sample the card is at when the system clock reads `t`.
        func trueSample(_ t: UInt64) -> Double { Double(t - start) / 1e9 * cardRate }
        var worst = 0.0
        var sample: Int64 = 0
        var nextUpdate = start + 1_000_000_000
        let end = start + UInt64(minutes * 60e9)
        while true {
            let due = start + UInt64((Double(sample) / cardRate * 1e9).rounded())
            guard due < end else { break }
            // A stalled render thread (the host busy for seconds) wakes 20-60 ms late for every period.
            let late = stalled(Double(due - start) / 1e9) ? UInt64.random(in: 20_000_000...60_000_000, using: &random)
                                                          : UInt64.random(in: 0...3_000_000, using: &random)
            clock.observePeriod(startingAt: sample, monotonic: due + late)
            sample += Int64(period)
            if due >= nextUpdate {
                clock.update()
                nextUpdate += 1_000_000_000
                // An event at any moment of the next second maps to the sample the card is at then.
                for offset in stride(from: UInt64(0), to: 1_000_000_000, by: 250_000_000) {
                    let t = due + offset
                    worst = max(worst, abs(Double(clock.sampleTime(atMonotonic: t)!) - trueSample(t)))
                }
            }
        }
        let anchored = ClockLine(x0: Int64(start), y0: 0, slope: rate / 1e9)
        return (worst, abs(anchored.map(Int64(end)) - trueSample(end)), (clock.measuredRateRatio! - 1) * 1e6)
    }

    func testBeforeTheFirstFitTheLineGoesThroughTheLeastLatePeriodAsTheFitDoes() {
        let clock = LiveClock(sampleRate: 48_000, periodFrames: 1024)
        let start: UInt64 = 5_000_000_000, periodNanoseconds = UInt64(1024 * 1e9 / 48_000)
        // An output starting: four periods rendered at once to fill the device's buffer, then one a period.
        for period in 0..<4 { clock.observePeriod(startingAt: Int64(period * 1024), monotonic: start + UInt64(period) * 100_000) }
        for period in 4..<40 {
            clock.observePeriod(startingAt: Int64(period * 1024), monotonic: start + UInt64(period - 3) * periodNanoseconds + 200_000)
        }
        let now = start + 37 * periodNanoseconds
        let provisional = clock.sampleTime(atMonotonic: now)!
        // Period 40 starts rendering now (the first period's line says 37): an event stamped now maps to
        // the audio being rendered, not to three periods before it.
        XCTAssertEqual(Double(provisional), 40 * 1024, accuracy: 64)
        clock.update()
        XCTAssertEqual(Double(clock.sampleTime(atMonotonic: now)!), Double(provisional), accuracy: 16)
    }

    func testHundredPPMFastCardFollowedWithinAPeriodForTenMinutes() {
        let result = simulate(ppm: 100, minutes: 10, seed: 1)
        print("100 ppm fast card, 10 min: worst error \(String(format: "%.1f", result.worst)) samples; anchored once: \(String(format: "%.0f", result.anchoredOnce))")
        XCTAssertLessThan(result.worst, 256)
        XCTAssertGreaterThan(result.anchoredOnce, 256 * 10, "the simulation must drift far without tracking")
    }

    func testHundredPPMSlowCardFollowedWithinAPeriodForTenMinutes() {
        let result = simulate(ppm: -100, minutes: 10, seed: 2)
        print("100 ppm slow card, 10 min: worst error \(String(format: "%.1f", result.worst)) samples")
        XCTAssertLessThan(result.worst, 256)
    }

    func testSecondsOfStalledRenderingDoNotTiltTheRate() {
        // Stalls of 5-15 s every minute: the less late half of the points still gives the rate.
        let result = simulate(ppm: 0, minutes: 10, seed: 3) { t in t.truncatingRemainder(dividingBy: 60) > 40 && t.truncatingRemainder(dividingBy: 60) < 40 + t / 60 + 5 }
        print("stalls every minute: worst error \(String(format: "%.1f", result.worst)) samples, rate \(String(format: "%+.2f", result.ppm)) ppm")
        XCTAssertLessThan(result.worst, 256)
        XCTAssertEqual(result.ppm, 0, accuracy: 20)
    }

    func testRateRatioIsMeasured() {
        let clock = LiveClock(sampleRate: 48_000, periodFrames: 480)
        XCTAssertNil(clock.measuredRateRatio)
        XCTAssertNil(clock.sampleTime(atMonotonic: 1))
        let cardRate = 48_000 * (1 + 50e-6)
        for second in 0..<30 {
            for period in 0..<100 {
                let sample = Int64(second * 100 + period) * 480
                clock.observePeriod(startingAt: sample, monotonic: UInt64((Double(sample) / cardRate * 1e9).rounded()) + 1_000_000)
            }
            clock.update()
        }
        XCTAssertEqual(clock.measuredRateRatio!, 1 + 50e-6, accuracy: 1e-7)
    }

    func testSymmetricFitGoesThroughTheMeanAndKeepsItsSlopeNearNominal() {
        var fit = ClockFit(nominalSlope: 1, noise: .symmetric)
        XCTAssertNil(fit.commit())
        fit.add(x: 1_000, y: 2_010)
        fit.add(x: 1_000, y: 1_990)
        XCTAssertEqual(fit.commit(), ClockLine(x0: 1_000, y0: 2_000, slope: 1))
        // A wild reading cannot move the slope further than the limit (1000 ppm).
        fit.add(x: 2_000, y: 1_000_000)
        XCTAssertEqual(fit.commit()!.slope, 1.001, accuracy: 1e-12)
    }

    func testPublishedLineIsReadWhole() {
        let line = PublishedClockLine()
        XCTAssertNil(line.load())
        let writer = Thread {
            for i in 1...200_000 { line.publish(ClockLine(x0: Int64(i), y0: Double(i), slope: Double(i))) }
        }
        writer.start()
        var reads = 0
        while !writer.isFinished || reads < 1000 {
            if let seen = line.load() {
                XCTAssertTrue(Double(seen.x0) == seen.y0 && seen.y0 == seen.slope, "torn read \(seen)")
                reads += 1
            }
        }
    }
}
