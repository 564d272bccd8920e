/// Converts between a sequence's ticks and real time, exactly, and lists its tempo, time-signature and
/// key-signature changes.
///
/// Times are `ExactTime`s: each tempo segment adds `ticks × µs-per-quarter / ticks-per-quarter`
/// microseconds as an exact fraction, so there is no drift however many tempo changes a file has.
/// Tempo and signature events of every track count (format 0 and 1); for a format 2 file build one map
/// per pattern with `init(sequence:track:)`. With SMPTE division ticks are fixed fractions of a second
/// and tempo events are ignored (29 frames per second means 29.97 drop-frame: 30000/1001 frames/s).
public struct TempoMap: Sendable {
    /// The division the map was built for.
    public let division: Division
    /// Tempo changes in effect, in tick order, one per tick (the last of several at one tick wins).
    /// Starts at tick 0, with the SMF default of 120 BPM when the file sets no tempo there.
    /// Empty for SMPTE division.
    public let tempoChanges: [TempoChange]
    /// Time signature changes, one per tick, starting at tick 0 (4/4 when the file sets none there).
    public let timeSignatures: [TimeSignatureChange]
    /// Key signature changes as the file gives them, in tick order (possibly empty).
    public let keySignatures: [KeySignatureChange]
    /// The tick at which the sequence (or pattern) ends: its last event, End of Track included.
    public let endTick: Int64

    /// Where each stretch of constant tempo starts, and its length per tick in `1/timeDenominator` µs.
    private let segments: [Segment]
    /// The denominator of every `ExactTime` this map returns.
    let timeDenominator: Int64
    /// Ticks per quarter note as bar:beat:tick counts them (ticks per second for SMPTE division).
    let ticksPerQuarter: Int64
    /// The bar (0-based) at which each time signature change starts.
    let barAtTimeSignature: [Int64]

    private struct Segment: Sendable {
        var tick: Int64
        var unitsPerTick: Int64
        var start: ExactTime
    }

    /// The map of a format 0 or 1 sequence (tempo events of all tracks), or of pattern `track` alone.
    public init(sequence: MusicSequence, track: Int? = nil) {
        let tracks = track.map { [sequence.tracks[$0]] } ?? sequence.tracks
        let endTick = track.map { sequence.tracks[$0].durationInTicks } ?? sequence.durationInTicks
        self.init(division: sequence.division, tracks: tracks, endTick: endTick)
    }

    /// The map of the given tracks played together, ending at `endTick`.
    public init(division: Division, tracks: [MusicTrack], endTick: Int64) {
        self.division = division
        self.endTick = max(0, endTick)
        ticksPerQuarter = division.ticksPerQuarterNote
        let metas = TempoMap.conductorMetas(in: tracks)

        switch division {
        case .ticksPerQuarter(let ppq):
            timeDenominator = Int64(max(1, ppq))
            tempoChanges = TempoMap.effectiveTempoChanges(metas)
        case .smpte(let fps, let ticksPerFrame):
            let frameTicks = Int64(max(1, ticksPerFrame))
            // 29.97 fps: one tick is 1001 × 10⁶ / (30000 × ticksPerFrame) µs = 100100 / (3 × ticksPerFrame).
            timeDenominator = fps == 29 ? 3 * frameTicks : Int64(max(1, fps)) * frameTicks
            tempoChanges = []
        }

        var segments: [Segment] = []
        if case .smpte(let fps, _) = division {
            segments.append(Segment(tick: 0, unitsPerTick: fps == 29 ? 100_100 : 1_000_000, start: .zero(denominator: timeDenominator)))
        } else {
            var start = ExactTime.zero(denominator: timeDenominator)
            for (index, change) in tempoChanges.enumerated() {
                if index > 0 {
                    let previous = tempoChanges[index - 1]
                    start = start.advanced(byTicks: change.tick - previous.tick, unitsPerTick: Int64(previous.microsecondsPerQuarter))
                }
                segments.append(Segment(tick: change.tick, unitsPerTick: Int64(change.microsecondsPerQuarter), start: start))
            }
        }
        self.segments = segments

        let signatures = TempoMap.effectiveTimeSignatures(metas)
        timeSignatures = signatures
        barAtTimeSignature = TempoMap.barStarts(of: signatures, ticksPerQuarter: ticksPerQuarter)
        keySignatures = metas.compactMap { tick, meta in
            guard case .keySignature(let sharps, let minor) = meta else { return nil }
            return KeySignatureChange(tick: tick, sharps: Int(sharps), minor: minor)
        }
    }

    // MARK: Ticks and time

    /// The exact time at `tick` (ticks before 0 count as 0).
    public func time(atTick tick: Int64) -> ExactTime {
        let segment = segments[segmentIndex(atTick: tick)]
        return segment.start.advanced(byTicks: max(0, tick) - segment.tick, unitsPerTick: segment.unitsPerTick)
    }

    /// The time at `tick` in seconds.
    public func seconds(atTick tick: Int64) -> Double {
        time(atTick: tick).seconds
    }

    /// The index of the audio sample at `tick` at `sampleRate`, rounded to the nearest sample.
    public func sampleTime(ofTick tick: Int64, sampleRate: Int) -> Int64 {
        time(atTick: tick).sampleIndex(sampleRate: sampleRate)
    }

    /// The first tick whose time is at or after `seconds` (0 for times at or before the start).
    public func tick(atSeconds seconds: Double) -> Int64 {
        guard seconds > 0 else { return 0 }
        guard seconds < 9e12 else { return .max }
        let wholeMicroseconds = (seconds * 1_000_000).rounded(.down)
        let fraction = seconds * 1_000_000 - wholeMicroseconds
        let target = ExactTime(microseconds: Int64(wholeMicroseconds),
                               remainder: Int64((fraction * Double(timeDenominator)).rounded()),
                               denominator: timeDenominator)
        var low = 0, high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].start <= target { low = middle } else { high = middle - 1 }
        }
        let segment = segments[low]
        guard segment.unitsPerTick > 0 else { return segment.tick }
        let offset = target - segment.start
        let (units, overflow) = offset.microseconds.multipliedReportingOverflow(by: timeDenominator)
        guard !overflow, units <= Int64.max - offset.remainder else { return .max }
        let totalUnits = units + offset.remainder
        let ticks = totalUnits / segment.unitsPerTick + (totalUnits % segment.unitsPerTick == 0 ? 0 : 1)
        return segment.tick.saturatingAdd(ticks)
    }

    /// The length of the sequence in seconds (up to `endTick`).
    public var durationInSeconds: Double {
        seconds(atTick: endTick)
    }

    /// The slowest and fastest tempo in beats (quarter notes) per minute over the sequence, leaving
    /// out tempos of 0 µs per quarter (which take no time); `nil` for SMPTE division or when every
    /// tempo is 0.
    public var tempoRange: ClosedRange<Double>? {
        let inEffect = tempoChanges.enumerated().filter { index, change in
            (index == 0 || change.tick < endTick) && change.microsecondsPerQuarter > 0
        }
        let bpms = inEffect.map { $0.element.beatsPerMinute }
        guard let slowest = bpms.min(), let fastest = bpms.max() else { return nil }
        return slowest...fastest
    }

    private func segmentIndex(atTick tick: Int64) -> Int { segments.lastIndex(atOrBefore: tick) { $0.tick } }
}

/// A tempo change: from `tick` on, a quarter note lasts `microsecondsPerQuarter` µs.
public struct TempoChange: Hashable, Sendable, Codable {
    public var tick: Int64
    public var microsecondsPerQuarter: UInt32

    public init(tick: Int64, microsecondsPerQuarter: UInt32) {
        self.tick = tick; self.microsecondsPerQuarter = microsecondsPerQuarter
    }

    /// The tempo in quarter notes per minute (infinite for a tempo of 0 µs).
    public var beatsPerMinute: Double {
        60_000_000 / Double(microsecondsPerQuarter)
    }
}

/// A time signature change: from `tick` on, bars of `numerator` beats of 1/`denominator` notes.
public struct TimeSignatureChange: Hashable, Sendable, Codable {
    public var tick: Int64
    public var numerator: Int
    public var denominator: Int

    public init(tick: Int64, numerator: Int, denominator: Int) {
        self.tick = tick; self.numerator = numerator; self.denominator = denominator
    }
}

/// A key signature change: `sharps` > 0 sharps or < 0 flats, major or minor.
public struct KeySignatureChange: Hashable, Sendable, Codable {
    public var tick: Int64
    public var sharps: Int
    public var minor: Bool

    public init(tick: Int64, sharps: Int, minor: Bool) {
        self.tick = tick; self.sharps = sharps; self.minor = minor
    }

    /// The key's name, e.g. "E♭ major" or "F♯ minor" ("unknown key" outside -7...7 accidentals).
    public var name: String {
        let majors = ["C♭", "G♭", "D♭", "A♭", "E♭", "B♭", "F", "C", "G", "D", "A", "E", "B", "F♯", "C♯"]
        let minors = ["A♭", "E♭", "B♭", "F", "C", "G", "D", "A", "E", "B", "F♯", "C♯", "G♯", "D♯", "A♯"]
        guard (-7...7).contains(sharps) else { return "unknown key" }
        return minor ? minors[sharps + 7] + " minor" : majors[sharps + 7] + " major"
    }
}

extension TempoMap {
    /// Tempo, time and key signature metas of `tracks`, ordered by tick, then track, then position.
    fileprivate static func conductorMetas(in tracks: [MusicTrack]) -> [(tick: Int64, meta: MetaEvent)] {
        var found: [(tick: Int64, track: Int, index: Int, meta: MetaEvent)] = []
        for (trackIndex, track) in tracks.enumerated() {
            for (index, timed) in track.events.enumerated() {
                guard case .meta(let meta) = timed.event else { continue }
                switch meta {
                case .tempo, .timeSignature, .keySignature:
                    found.append((max(0, timed.tick), trackIndex, index, meta))
                default:
                    continue
                }
            }
        }
        found.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }
        return found.map { ($0.tick, $0.meta) }
    }

    fileprivate static func effectiveTempoChanges(_ metas: [(tick: Int64, meta: MetaEvent)]) -> [TempoChange] {
        var changes = [TempoChange(tick: 0, microsecondsPerQuarter: 500_000)]
        for (tick, meta) in metas {
            guard case .tempo(let microseconds) = meta else { continue }
            let change = TempoChange(tick: tick, microsecondsPerQuarter: microseconds)
            if changes[changes.count - 1].tick == tick { changes[changes.count - 1] = change } else { changes.append(change) }
        }
        return changes
    }

    fileprivate static func effectiveTimeSignatures(_ metas: [(tick: Int64, meta: MetaEvent)]) -> [TimeSignatureChange] {
        var changes = [TimeSignatureChange(tick: 0, numerator: 4, denominator: 4)]
        for (tick, meta) in metas {
            guard case .timeSignature(let numerator, let power, _, _) = meta else { continue }
            // Nonsense values (0 beats, 1/2^200 notes) are clamped to something countable.
            let change = TimeSignatureChange(tick: tick, numerator: max(1, Int(numerator)), denominator: 1 << min(Int(power), 8))
            if changes[changes.count - 1].tick == tick { changes[changes.count - 1] = change } else { changes.append(change) }
        }
        return changes
    }
}

extension Array {
    /// For elements in tick order (`tickOf`), binary search: the index of the last one whose tick is
    /// at most `tick`; 0 when none is (or the array is empty).
    func lastIndex(atOrBefore tick: Int64, tickOf: (Element) -> Int64) -> Int {
        var low = 0, high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if tickOf(self[middle]) <= tick { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
