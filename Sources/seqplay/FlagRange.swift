import ArgumentParser

/// The range checks every numeric flag goes through before its value is used, so NaN, infinity, a
/// negative or a huge number is one line naming the flag and what it takes (exit 64), never a trap
/// further on. Numeric options are declared with `parsing: .unconditional`, so a negative number
/// reaches these checks (`--transpose -2`) instead of being taken for an option.
enum FlagRange {
    /// The longest length any flag may ask for: 24 hours, as `SongOptions.maximumDuration`.
    static let maximumSeconds: Double = 24 * 3600

    /// Requires `value` (when given) to be a finite number above `lower` (or at least `minimum`) and
    /// at most `maximum`: "--rate must be > 0 (got -1)".
    static func check(_ value: Double?, _ flag: String, above lower: Double? = nil, atLeast minimum: Double? = nil,
                      atMost maximum: Double, unit: String = "") throws {
        guard let value else { return }
        let got = " (got \(value.formatted))"
        guard value.isFinite else { throw ValidationError("\(flag) must be a finite number\(got)") }
        if let lower, !(value > lower) { throw ValidationError("\(flag) must be > \(lower.formatted)\(unit)\(got)") }
        if let minimum, !(value >= minimum) { throw ValidationError("\(flag) must be at least \(minimum.formatted)\(unit)\(got)") }
        if !(value <= maximum) { throw ValidationError("\(flag) must be at most \(maximum.formatted)\(unit)\(got)") }
    }

    /// A length in seconds: 0 to 24 hours (`above: 0` when 0 makes no sense).
    static func seconds(_ value: Double?, _ flag: String, above lower: Double? = nil) throws {
        try check(value, flag, above: lower, atLeast: lower == nil ? 0 : nil, atMost: maximumSeconds, unit: " s")
    }

    /// Requires each integer in `values` to lie in `range`: "--periods must be 2 to 64 (got 0)".
    static func check<Value: BinaryInteger>(_ values: [Value], _ flag: String, in range: ClosedRange<Value>, unit: String = "") throws {
        for value in values where !range.contains(value) {
            throw ValidationError("\(flag) must be \(range.lowerBound) to \(range.upperBound)\(unit) (got \(value))")
        }
    }

    static func check<Value: BinaryInteger>(_ value: Value?, _ flag: String, in range: ClosedRange<Value>, unit: String = "") throws {
        try check(value.map { [$0] } ?? [], flag, in: range, unit: unit)
    }

    /// Requires an integer (when given) to be at least `minimum`, with no upper bound: "--jobs must be
    /// at least 1 (got 0)".
    static func check<Value: BinaryInteger>(_ value: Value?, _ flag: String, atLeast minimum: Value) throws {
        if let value, value < minimum { throw ValidationError("\(flag) must be at least \(minimum) (got \(value))") }
    }
}

extension ParsableArguments {
    /// What `parse` makes of a flag's text; what it throws becomes the flag's one line, "--fx: why"
    /// (exit 64; "--drums why" with `separator` " ").
    func parsedFlag<Value>(_ flag: String, separator: String = ": ", _ parse: () throws -> Value) throws -> Value {
        do {
            return try parse()
        } catch {
            throw ValidationError(flag + separator + "\(error)")
        }
    }
}

private extension Double {
    /// 5 rather than 5.0; 1e+30 as Swift writes it.
    var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : "\(self)" }
}
