import SeqplaySupport

/// The clock model of live input: maps monotonic time (CLOCK_MONOTONIC ns, the time base every
/// producer's timestamps are brought to) to the sample time of the audio being rendered, and follows
/// the sound card's drift against the system clock.
///
/// The render thread calls `observePeriod(startingAt:)` as it starts each period: one (monotonic,
/// sample) pair, handed over lock-free. The control thread calls `update()` about once a second: it
/// fits a `ClockFit` (least-squares rate ratio, position through the least-late periods, since a
/// render thread can wake late but never early) and publishes the line. Until the first update the
/// render thread maps through the least late period so far at the nominal rate. `sampleTime(atMonotonic:)` is
/// then a fixed distance from the audio the device plays, whatever the wake-up jitter.
package final class LiveClock {
    package let sampleRate: Double
    package let periodFrames: Int
    /// Samples per nanosecond at the nominal rate.
    private let nominalSlope: Double
    private let observations = SingleProducerQueue<(monotonic: UInt64, sample: Int64)>(capacity: 1024, filler: (0, 0))
    private let published = PublishedClockLine()
    /// Used by the control thread only.
    private var fit: ClockFit
    /// The render thread's line until the first fit is published.
    private var provisional: ClockLine?

    /// A clock for audio at `sampleRate` rendered in periods of `periodFrames`.
    package init(sampleRate: Double, periodFrames: Int) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        nominalSlope = sampleRate / 1e9
        fit = ClockFit(nominalSlope: nominalSlope, noise: .lateOnly)
    }

    // MARK: Render thread

    /// Records that the period starting at `sampleTime` is being rendered now (`monotonic`, default:
    /// the clock now). Real-time safe.
    package func observePeriod(startingAt sampleTime: Int64, monotonic: UInt64 = MonotonicClock.now()) {
        // The fit's rule before there is a fit: the line through the least late period so far (a burst
        // of periods rendered at start, to fill the device's buffer, sets it ahead of the first one).
        if provisional.map({ Double(sampleTime) > $0.map(Int64(bitPattern: monotonic)) }) ?? true {
            provisional = ClockLine(x0: Int64(bitPattern: monotonic), y0: Double(sampleTime), slope: nominalSlope)
        }
        observations.append((monotonic, sampleTime))
    }

    /// The sample being rendered (as the period start) at monotonic time `monotonic`; nil before
    /// the first period. Real-time safe.
    package func sampleTime(atMonotonic monotonic: UInt64) -> Int64? {
        (published.load() ?? provisional).map { Self.sample(on: $0, atMonotonic: monotonic) }
    }

    // MARK: Control thread

    /// `sampleTime(atMonotonic:)` through the published line only (the render thread's provisional
    /// line is its own); nil before the first `update`. Any thread.
    package func fittedSampleTime(atMonotonic monotonic: UInt64) -> Int64? {
        published.load().map { Self.sample(on: $0, atMonotonic: monotonic) }
    }

    private static func sample(on line: ClockLine, atMonotonic monotonic: UInt64) -> Int64 {
        Int64(line.map(Int64(bitPattern: monotonic)).rounded())
    }

    /// Fits the line to the periods observed since the last call and publishes it; returns it.
    @discardableResult
    package func update() -> ClockLine? {
        while let observation = observations.removeFirst() {
            fit.add(x: Int64(bitPattern: observation.monotonic), y: Double(observation.sample))
        }
        guard let line = fit.commit() else { return nil }
        published.publish(line)
        return line
    }

    /// The rate ratio of the sound card against the system clock, as last fitted (1 = no drift);
    /// nil before the first update.
    package var measuredRateRatio: Double? {
        published.load().map { $0.slope / nominalSlope }
    }
}
