/// A time (or a span of time) in microseconds held exactly: `microseconds + remainder / denominator`,
/// with `0 ≤ remainder < denominator`.
///
/// A `TempoMap` hands these out so that times survive any number of tempo changes without rounding:
/// the denominator is the map's (ticks per quarter note for metrical files), the same for every time
/// of one map, so sums and differences stay exact. Values saturate instead of overflowing (at about
/// 292,000 years), so hostile files cannot crash the arithmetic.
public struct ExactTime: Hashable, Comparable, Sendable {
    public let microseconds: Int64
    public let remainder: Int64
    public let denominator: Int64

    /// `microseconds + remainder / denominator`, normalised so that `0 ≤ remainder < denominator`.
    public init(microseconds: Int64, remainder: Int64 = 0, denominator: Int64 = 1) {
        precondition(denominator > 0, "ExactTime needs a positive denominator")
        var whole = microseconds
        var rest = remainder % denominator
        whole = whole.saturatingAdd(remainder / denominator)
        if rest < 0 { rest += denominator; whole = whole.saturatingAdd(-1) }
        self.microseconds = whole
        self.remainder = rest
        self.denominator = denominator
    }

    /// Zero with the given denominator.
    public static func zero(denominator: Int64) -> ExactTime {
        ExactTime(microseconds: 0, denominator: denominator)
    }

    /// The time in seconds, rounded to the nearest `Double`.
    public var seconds: Double {
        (Double(microseconds) + Double(remainder) / Double(denominator)) / 1_000_000
    }

    /// This time plus `ticks × unitsPerTick / denominator` microseconds (a stretch of a tempo segment).
    func advanced(byTicks ticks: Int64, unitsPerTick: Int64) -> ExactTime {
        guard ticks > 0, unitsPerTick > 0 else { return self }
        guard let (whole, rest) = multiplyDivide(ticks, unitsPerTick, denominator) else { return .saturated(denominator) }
        return ExactTime(microseconds: microseconds.saturatingAdd(whole), remainder: remainder + rest, denominator: denominator)
    }

    /// The largest representable time (what overflowing arithmetic gives).
    static func saturated(_ denominator: Int64) -> ExactTime {
        ExactTime(microseconds: .max, remainder: 0, denominator: denominator)
    }

    public static func + (a: ExactTime, b: ExactTime) -> ExactTime {
        precondition(a.denominator == b.denominator, "adding times of different tempo maps")
        return ExactTime(microseconds: a.microseconds.saturatingAdd(b.microseconds),
                         remainder: a.remainder + b.remainder, denominator: a.denominator)
    }

    public static func - (a: ExactTime, b: ExactTime) -> ExactTime {
        precondition(a.denominator == b.denominator, "subtracting times of different tempo maps")
        return ExactTime(microseconds: a.microseconds.saturatingAdd(-b.microseconds),
                         remainder: a.remainder - b.remainder, denominator: a.denominator)
    }

    public static func < (a: ExactTime, b: ExactTime) -> Bool {
        precondition(a.denominator == b.denominator, "comparing times of different tempo maps")
        return (a.microseconds, a.remainder) < (b.microseconds, b.remainder)
    }

    /// The index of the audio sample at this time: `time × sampleRate / speed`, rounded by `rounding`.
    ///
    /// `speed` is the playback rate as a fraction (2/1 plays twice as fast, so times halve). Exact for
    /// sample rates up to 1,000,000 Hz, speeds whose numerator and denominator are at most 10⁷ and
    /// non-negative times; the result saturates at `Int64.max`.
    public func sampleIndex(sampleRate: Int, speed: (numerator: Int64, denominator: Int64) = (1, 1),
                            rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64 {
        precondition(sampleRate > 0 && speed.numerator > 0 && speed.denominator > 0)
        // samples = (µs + rem/Q) × P / M with P = sampleRate × speedDen, M = 10⁶ × speedNum.
        var p = Int64(sampleRate) * speed.denominator
        var m = 1_000_000 * speed.numerator
        let common = gcd(p, m)
        p /= common; m /= common
        guard microseconds >= 0, let (whole, wholeRest) = multiplyDivide(microseconds, p, m) else { return .max }
        // Fractional part: (wholeRest / M) + (rem × P) / (Q × M), over the common denominator Q × M.
        let fractionDenominator = denominator * m
        let fractionNumerator = wholeRest * denominator + remainder * p
        let carried = fractionNumerator / fractionDenominator
        let rest = fractionNumerator % fractionDenominator
        let floor = whole.saturatingAdd(carried)
        return floor.saturatingAdd(roundingIncrement(rest: rest, of: fractionDenominator, floor: floor, rule: rounding))
    }
}

/// 1 when a value `floor + rest/denominator` (0 ≤ rest < denominator) rounds up under `rule`, else 0.
/// Only non-negative values reach here, so toward-zero is down and away-from-zero is up.
private func roundingIncrement(rest: Int64, of denominator: Int64, floor: Int64, rule: FloatingPointRoundingRule) -> Int64 {
    guard rest > 0 else { return 0 }
    let beyondHalf = rest > denominator - rest
    let atHalf = rest == denominator - rest
    switch rule {
    case .down, .towardZero: return 0
    case .up, .awayFromZero: return 1
    case .toNearestOrAwayFromZero: return beyondHalf || atHalf ? 1 : 0
    case .toNearestOrEven: return beyondHalf || (atHalf && floor % 2 != 0) ? 1 : 0
    @unknown default: return beyondHalf || atHalf ? 1 : 0
    }
}

/// `(a × b) / c` as quotient and remainder for `a, b ≥ 0` and `c > 0`, computed with a 128-bit
/// intermediate product; `nil` when the quotient does not fit in `Int64`.
func multiplyDivide(_ a: Int64, _ b: Int64, _ c: Int64) -> (quotient: Int64, remainder: Int64)? {
    precondition(a >= 0 && b >= 0 && c > 0)
    let product = UInt64(a).multipliedFullWidth(by: UInt64(b))
    guard product.high < UInt64(c) else { return nil }
    let (quotient, remainder) = UInt64(c).dividingFullWidth(product)
    guard quotient <= UInt64(Int64.max) else { return nil }
    return (Int64(quotient), Int64(remainder))
}

/// Greatest common divisor of two positive numbers.
func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}

extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max` instead of trapping.
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
