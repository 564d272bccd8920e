/// Conversions from floating point to integers that cannot trap.
///
/// Swift's `Int64(someDouble)` stops the program when the value is NaN, infinite or out of range
/// (`Int64(1e15 * 44_100)`). Every number that comes from outside — a command-line flag, a field of
/// a file or a packet, or arithmetic on them — goes through these instead: `init?(checked:)` where
/// an out-of-range value is an error to report, `init(clamping:)` where the nearest value will do.
extension FixedWidthInteger {
    /// `value` rounded by `rule`, or `nil` when it is NaN, infinite or outside this type's range.
    @inlinable
    public init?(checked value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        guard let integer = Self(exactly: value.rounded(rule)) else { return nil }
        self = integer
    }

    /// `value` rounded by `rule` and clamped to this type's range; NaN becomes 0.
    @inlinable
    public init(clamping value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
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
    public func within(_ range: ClosedRange<Double>) -> Double? {
        range.contains(self) ? self : nil
    }
}
