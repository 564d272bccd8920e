import Atomics

/// A straight-line map from one clock to another: `y = y0 + slope · (x − x0)`. It is how a
/// producer's timestamps (kernel queue time, JACK frames) become monotonic time, and how monotonic
/// time becomes the sample time of the audio being rendered.
package struct ClockLine: Equatable, Sendable {
    /// A point of the line: a reading of the first clock…
    package var x0: Int64
    /// …and the second clock's reading at that moment.
    package var y0: Double
    /// Units of the second clock per unit of the first.
    package var slope: Double

    /// The second clock's reading when the first read `x`.
    @inlinable
    package func map(_ x: Int64) -> Double {
        y0 + slope * Double(x &- x0)
    }
}

/// How a clock pair's readings are off: which estimate of the line's position suits them.
package enum ClockNoise: Sendable {
    /// Errors in both directions (two clocks read back to back): the line goes through their mean.
    case symmetric
    /// Readings of the first clock are only ever late (a render thread waking up after the period
    /// began): the line goes through the earliest ones, so it is a fixed distance from the real clock.
    case lateOnly
}

/// Fits a `ClockLine` to pairs of clock readings and follows its drift: the rate ratio is the
/// least-squares slope over the last `windowPoints` points (for late-only noise, over the least late
/// of them), and the position the mean (symmetric noise) or upper envelope (late-only noise) of the
/// points around it. Readings are gathered into a
/// point per `commit()` (the control thread commits about once a second), keeping for `.lateOnly`
/// the reading least late. Used on one thread at a time; not real-time safe (it is not needed there).
package struct ClockFit: Sendable {
    /// The slope to assume before there are two points (e.g. 1 for ns → ns, rate / 1e9 for ns → samples).
    package let nominalSlope: Double
    package let noise: ClockNoise
    /// At most this many committed points are kept: with a commit a second, about a minute.
    package let windowPoints: Int
    /// The fitted slope stays within this many parts per million of `nominalSlope` (a bad reading
    /// cannot send the estimate away).
    package let maximumDeviation: Double

    private var points: [(x: Int64, y: Double)] = []
    private var bucket: (x: Int64, y: Double, count: Int)?

    package init(nominalSlope: Double, noise: ClockNoise, windowPoints: Int = 64, maximumPPM: Double = 1000) {
        self.nominalSlope = nominalSlope
        self.noise = noise
        self.windowPoints = windowPoints
        maximumDeviation = maximumPPM * 1e-6
        points.reserveCapacity(windowPoints)
    }

    /// Takes one pair of readings: the second clock read `y` when the first read `x`.
    package mutating func add(x: Int64, y: Double) {
        guard let current = bucket else {
            bucket = (x, y, 1)
            return
        }
        switch noise {
        case .symmetric:
            // Running mean, relative to the bucket's first x so large readings keep their precision.
            let n = Double(current.count + 1)
            let meanX = current.x &+ Int64((Double(x &- current.x) / n).rounded())
            let meanY = current.y + (y - current.y) / n
            bucket = (meanX, meanY, current.count + 1)
        case .lateOnly:
            // The least late reading is the one whose y is highest for its x.
            if y - nominalSlope * Double(x &- current.x) > current.y { bucket = (x, y, current.count + 1) }
        }
    }

    /// Ends the current point (call about once a second); returns the line fitted to the points so
    /// far, or nil while there are none.
    package mutating func commit() -> ClockLine? {
        if let bucket {
            if points.count == windowPoints { points.removeFirst() }
            points.append((bucket.x, bucket.y))
            self.bucket = nil
        }
        return line
    }

    /// The line fitted to the committed points; nil while there are none. With late-only noise the
    /// slope is fitted again to the less late half of the points, twice, so a stretch of late
    /// readings (a render thread stalled for seconds) does not tilt it.
    package var line: ClockLine? {
        guard let last = points.last else { return nil }
        let residual = { (point: (x: Int64, y: Double), slope: Double) in point.y - last.y - slope * Double(point.x &- last.x) }
        var chosen = points
        var slope = fittedSlope(chosen, around: last)
        if noise == .lateOnly {
            for _ in 0..<2 where chosen.count >= 8 {
                let median = chosen.map { residual($0, slope) }.sorted()[chosen.count / 2]
                chosen = chosen.filter { residual($0, slope) >= median }
                slope = fittedSlope(chosen, around: last)
            }
        }
        let residuals = points.lazy.map { residual($0, slope) }
        let offset: Double
        switch noise {
        case .symmetric: offset = residuals.reduce(0, +) / Double(points.count)
        case .lateOnly: offset = residuals.max()!
        }
        return ClockLine(x0: last.x, y0: last.y + offset, slope: slope)
    }

    /// The least-squares slope of `points` (x relative to `origin`), within the allowed deviation;
    /// the nominal slope for fewer than two distinct x.
    private func fittedSlope(_ points: [(x: Int64, y: Double)], around origin: (x: Int64, y: Double)) -> Double {
        guard points.count >= 2 else { return nominalSlope }
        let n = Double(points.count)
        let meanX = points.reduce(0.0) { $0 + Double($1.x &- origin.x) } / n
        let meanY = points.reduce(0.0) { $0 + ($1.y - origin.y) } / n
        var sxy = 0.0, sxx = 0.0
        for point in points {
            let dx = Double(point.x &- origin.x) - meanX
            sxy += dx * (point.y - origin.y - meanY)
            sxx += dx * dx
        }
        guard sxx > 0 else { return nominalSlope }
        let limit = abs(nominalSlope) * maximumDeviation
        return min(max(sxy / sxx, nominalSlope - limit), nominalSlope + limit)
    }
}

/// A `ClockLine` one thread publishes and others read, without locks or allocation on either side:
/// two slots, the writer fills the one not in use and then switches. A reader that sees a switch
/// while it reads reads again (the writer publishes about once a second, so it never waits long).
/// Every access is sequentially consistent, which makes that check sound.
package final class PublishedClockLine: Sendable {
    private let generation = ManagedAtomic<Int>(0)
    private let slots = (Slot(), Slot())

    private final class Slot: Sendable {
        let x0 = ManagedAtomic<Int64>(0)
        let y0 = ManagedAtomic<UInt64>(0)
        let slope = ManagedAtomic<UInt64>(0)
    }

    package init() {}

    /// Makes `line` the one readers see (one writer thread at a time).
    package func publish(_ line: ClockLine) {
        let next = generation.load(ordering: .sequentiallyConsistent) + 1
        let slot = next & 1 == 0 ? slots.0 : slots.1
        slot.x0.store(line.x0, ordering: .sequentiallyConsistent)
        slot.y0.store(line.y0.bitPattern, ordering: .sequentiallyConsistent)
        slot.slope.store(line.slope.bitPattern, ordering: .sequentiallyConsistent)
        generation.store(next, ordering: .sequentiallyConsistent)
    }

    /// The line published last; nil before the first. Real-time safe.
    package func load() -> ClockLine? {
        while true {
            let seen = generation.load(ordering: .sequentiallyConsistent)
            guard seen > 0 else { return nil }
            let slot = seen & 1 == 0 ? slots.0 : slots.1
            let line = ClockLine(x0: slot.x0.load(ordering: .sequentiallyConsistent),
                                 y0: Double(bitPattern: slot.y0.load(ordering: .sequentiallyConsistent)),
                                 slope: Double(bitPattern: slot.slope.load(ordering: .sequentiallyConsistent)))
            // The writer refills this slot only after publishing the other one.
            if generation.load(ordering: .sequentiallyConsistent) == seen { return line }
        }
    }
}
