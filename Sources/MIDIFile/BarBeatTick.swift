/// A musical position as DAWs show it, e.g. "12:3:240": 1-based bar and beat, then ticks into the beat.
///
/// A beat is one 1/denominator note of the time signature in effect. A time signature change that
/// falls inside a bar starts a new bar.
public struct BarBeatTick: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var bar: Int64
    public var beat: Int64
    public var tick: Int64

    public init(bar: Int64, beat: Int64 = 1, tick: Int64 = 0) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
    }

    /// Parses "bar", "bar:beat" or "bar:beat:tick" (bar and beat ≥ 1, tick ≥ 0).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int64($0) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        let numbers = parts.map { $0! }
        self.init(bar: numbers[0], beat: numbers.count > 1 ? numbers[1] : 1, tick: numbers.count > 2 ? numbers[2] : 0)
        guard bar >= 1, beat >= 1, tick >= 0 else { return nil }
    }

    public var description: String { "\(bar):\(beat):\(tick)" }

    public static func < (a: BarBeatTick, b: BarBeatTick) -> Bool {
        (a.bar, a.beat, a.tick) < (b.bar, b.beat, b.tick)
    }
}

extension TempoMap {
    /// The bar:beat:tick position of `tick`.
    public func barBeatTick(atTick tick: Int64) -> BarBeatTick {
        let index = timeSignatureIndex(atTick: tick)
        let signature = timeSignatures[index]
        let beatLength = ticksPerQuarter * 4 // one beat in ticks × denominator
        // Positions are counted in ticks × denominator so that beats shorter than a tick stay exact.
        guard let (bars, intoBar) = multiplyDivide(max(0, tick) - signature.tick, Int64(signature.denominator),
                                                   beatLength * Int64(signature.numerator)) else {
            return BarBeatTick(bar: .max, beat: 1, tick: 0)
        }
        return BarBeatTick(bar: barAtTimeSignature[index].saturatingAdd(bars).saturatingAdd(1),
                           beat: intoBar / beatLength + 1,
                           tick: intoBar % beatLength / Int64(signature.denominator))
    }

    /// The tick at a bar:beat:tick position (beats past the end of a bar run on into the next).
    public func tick(at position: BarBeatTick) -> Int64 {
        let bar = max(0, position.bar - 1)
        var index = 0
        while index + 1 < barAtTimeSignature.count && barAtTimeSignature[index + 1] <= bar { index += 1 }
        let signature = timeSignatures[index]
        let beatLength = ticksPerQuarter * 4
        let beats = (bar - barAtTimeSignature[index]).multipliedReportingOverflow(by: Int64(signature.numerator))
        guard !beats.overflow else { return .max }
        let totalBeats = beats.partialValue.saturatingAdd(max(0, position.beat - 1))
        guard let (ticks, _) = multiplyDivide(totalBeats, beatLength, Int64(signature.denominator)) else { return .max }
        return signature.tick.saturatingAdd(ticks).saturatingAdd(max(0, position.tick))
    }

    /// How many bars long the sequence is, with the last partial bar as a fraction (e.g. 31.5).
    public var durationInBars: Double {
        bars(atTick: endTick)
    }

    /// The number of bars from the start to `tick`, as a fraction.
    public func bars(atTick tick: Int64) -> Double {
        let index = timeSignatureIndex(atTick: tick)
        let signature = timeSignatures[index]
        let barTicks = Double(ticksPerQuarter * 4 * Int64(signature.numerator)) / Double(signature.denominator)
        return Double(barAtTimeSignature[index]) + Double(max(0, tick) - signature.tick) / barTicks
    }

    private func timeSignatureIndex(atTick tick: Int64) -> Int { timeSignatures.lastIndex(atOrBefore: tick) { $0.tick } }

    /// The 0-based bar at which each time signature starts: a change inside a bar starts a new one.
    static func barStarts(of signatures: [TimeSignatureChange], ticksPerQuarter: Int64) -> [Int64] {
        var bars: [Int64] = [0]
        for index in signatures.indices.dropFirst() {
            let previous = signatures[index - 1]
            let barLength = ticksPerQuarter * 4 * Int64(previous.numerator)
            let span = signatures[index].tick - previous.tick
            guard let (whole, rest) = multiplyDivide(span, Int64(previous.denominator), barLength) else {
                bars.append(.max)
                continue
            }
            bars.append(bars[index - 1].saturatingAdd(whole + (rest > 0 ? 1 : 0)))
        }
        return bars
    }
}
