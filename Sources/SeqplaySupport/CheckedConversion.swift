/// Conversions from floating point to integers that cannot trap.
///
/// Swift's `Int64(someDouble)` stops the program when the value is NaN, infinite or out of range
/// (`Int64(1e15 * 44_100)`). Every number that comes from outside — a command-line flag, a field of
/// a file or a packet, or arithmetic on them — goes through these instead: `init?(checked:)` where
/// an out-of-range value is an error to report, `init(clamping:)` where the nearest value will do.
extension FixedWidthInteger {
    /// `value` rounded by `rule`, or `nil` when it is NaN, infinite or outside this type's range.
    @inlinable
    package init?(checked value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        guard let integer = Self(exactly: value.rounded(rule)) else { return nil }
        self = integer
    }

    /// `value` rounded by `rule` and clamped to this type's range; NaN becomes 0.
    @inlinable
    package init(clamping value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        if let integer = Self(checked: value, rounding: rule) {
            self = integer
        } else if value.isNaN {
            self = 0
        } else {
            self = value < 0 ? .min : .max
        }
    }
}

extension Double {
    /// `self` when it is a finite number in `range`, else `nil`: the one check a length, rate or
    /// gain from outside needs before it is used (`nan` and `inf` are in no range).
    @inlinable
    package func within(_ range: ClosedRange<Double>) -> Double? {
        range.contains(self) ? self : nil
    }
}

extension UInt64 {
    /// The longest span `init(nanoseconds:)` gives: 100 years, so that adding it to any reading of a
    /// monotonic clock (nanoseconds since boot) cannot overflow.
    @usableFromInline package static let maximumSpanNanoseconds: UInt64 = 100 * 365 * 86_400 * 1_000_000_000

    /// `seconds` as nanoseconds, clamped to 0...`maximumSpanNanoseconds`; NaN is 0. For timeouts and
    /// intervals that come from outside (`--duration 1e30`).
    @inlinable
    package init(nanoseconds seconds: Double) {
        self = Swift.min(UInt64(clamping: seconds * 1e9), Self.maximumSpanNanoseconds)
    }
}
