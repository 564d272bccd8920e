import ALSA
import MIDICore
import MIDIFile

/// A sequence flattened for the ALSA sequencer: every MIDI and System Exclusive event of every track,
/// at its exact time from the tempo map (nanoseconds), with the port it goes to; optionally MIDI clock.
///
/// Routing follows aplaymidi: a track starts on the first destination and an SMF port meta event
/// (0x21, value n) moves it to destination n modulo their count; `trackDestinations` overrides both.
/// Format 2 patterns play one after another, as in `MusicPlayer`. With `endTick` the song stops there:
/// later events are left out and the notes still sounding get a Note Off at that moment.
public struct SequencerSchedule: Sendable {
    /// One event to send.
    public struct Entry: Hashable, Sendable {
        public let nanoseconds: UInt64
        public let message: MIDIMessage
        public let destination: PortAddress
    }

    /// The longest song the sequencer plays: 24 hours.
    public static let longestSongNanoseconds: UInt64 = 24 * 3600 * 1_000_000_000

    /// The file's events in time order (events at the same time keep track order, then file order).
    /// MIDI clock messages are not among them: `events` generates those as it goes.
    public let entries: [Entry]
    /// When the last event (including its track end) happens.
    public let endNanoseconds: UInt64
    /// Every port the schedule sends to, in address order.
    public let destinations: [PortAddress]
    /// The MIDI clock to send with the song, if any.
    private let clock: MIDIClock?

    /// Throws `SequencerScheduleError.songTooLong` for a song longer than `longestSongNanoseconds`.
    public init(sequence: MusicSequence, destinations: [PortAddress], trackDestinations: [Int: PortAddress] = [:],
                midiClock: Bool = false, endTick: Int64? = nil) throws(SequencerScheduleError) {
        precondition(!destinations.isEmpty, "a schedule needs at least one destination")
        let playable = sequence.concatenatingPatterns()
        let tempoMap = TempoMap(sequence: playable)
        let lastTick = min(tempoMap.endTick, max(0, endTick ?? .max))
        let end = Self.nanoseconds(tempoMap.time(atTick: lastTick))
        guard end <= Self.longestSongNanoseconds else { throw .songTooLong(seconds: tempoMap.durationInSeconds) }

        var timed: [(tick: Int64, order: Int, entry: Entry)] = []
        for (trackIndex, track) in playable.tracks.enumerated() {
            var destination = trackDestinations[trackIndex] ?? destinations[0]
            var sounding = SoundingNotes()
            for event in track.events {
                if endTick != nil && event.tick >= lastTick { continue }
                let message: MIDIMessage
                switch event.event {
                case .midi(let midi): message = midi
                case .sysEx(let bytes): message = .systemExclusive([0xF0] + bytes + (bytes.last == 0xF7 ? [] : [0xF7]))
                case .meta(.port(let port)):
                    if trackDestinations[trackIndex] == nil {
                        destination = destinations[Int(port) % destinations.count]
                    }
                    continue
                default: continue
                }
                let entry = Entry(nanoseconds: Self.nanoseconds(tempoMap.time(atTick: event.tick)), message: message,
                                  destination: destination)
                timed.append((event.tick, timed.count, entry))
                sounding.note(message, to: destination)
            }
            for (note, destination) in endTick == nil ? [] : sounding.held {
                timed.append((lastTick, timed.count, Entry(nanoseconds: end, message: note, destination: destination)))
            }
        }
        timed.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        entries = timed.map(\.entry)
        endNanoseconds = max(end, entries.last?.nanoseconds ?? 0)
        self.destinations = Set(destinations + entries.map(\.destination) + trackDestinations.values).sorted()
        if midiClock, case .ticksPerQuarter(let ppq) = playable.division, ppq > 0 {
            clock = MIDIClock(tempoMap: tempoMap, ticksPerQuarter: Int64(ppq), endTick: lastTick)
        } else {
            clock = nil
        }
    }

    /// Everything to send, in time order: with MIDI clock, Song Position 0 and Start to every destination
    /// first, a Timing Clock to each every 1/24 quarter note (before the song's events at the same time)
    /// and Stop at the end.
    public var events: Events {
        Events(schedule: self)
    }

    /// The schedule's events in time order, MIDI clock included, generated one at a time.
    public struct Events: Sequence, IteratorProtocol, Sendable {
        private let schedule: SequencerSchedule
        private var opening: [Entry]
        private var closing: [Entry]
        private var nextEntry = 0
        /// The next MIDI clock (counted from 0) and the destinations still to get it.
        private var nextClock = 0
        private var pendingClocks: [Entry] = []

        init(schedule: SequencerSchedule) {
            self.schedule = schedule
            let clocked = schedule.clock == nil ? [] : schedule.destinations
            opening = clocked.flatMap { [Entry(nanoseconds: 0, message: .songPosition(0), destination: $0),
                                         Entry(nanoseconds: 0, message: .start, destination: $0)] }.reversed()
            closing = clocked.map { Entry(nanoseconds: schedule.endNanoseconds, message: .stop, destination: $0) }.reversed()
        }

        public mutating func next() -> Entry? {
            if let entry = opening.popLast() { return entry }
            if pendingClocks.isEmpty, let clock = schedule.clock, let time = clock.nanoseconds(ofClock: nextClock) {
                let upcoming = nextEntry < schedule.entries.count ? schedule.entries[nextEntry].nanoseconds : .max
                if time <= upcoming {
                    pendingClocks = schedule.destinations.reversed().map {
                        Entry(nanoseconds: time, message: .timingClock, destination: $0)
                    }
                    nextClock += 1
                }
            }
            if let clock = pendingClocks.popLast() { return clock }
            if nextEntry < schedule.entries.count {
                nextEntry += 1
                return schedule.entries[nextEntry - 1]
            }
            return closing.popLast()
        }
    }

    /// Nanoseconds in `time`, rounded to the nearest and saturating at `UInt64.max`.
    static func nanoseconds(_ time: ExactTime) -> UInt64 {
        let fraction = (time.remainder * 1000 + time.denominator / 2) / time.denominator
        let (whole, overflow) = UInt64(max(0, time.microseconds)).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let (total, carry) = whole.addingReportingOverflow(UInt64(fraction))
        return carry ? .max : total
    }
}

/// MIDI clock for a song: 24 Timing Clock messages per quarter note from tick 0 to the song's end.
struct MIDIClock: Sendable {
    let tempoMap: TempoMap
    let ticksPerQuarter: Int64
    let endTick: Int64

    /// When clock number `index` (from 0) is due, or `nil` when it would fall after the song's end.
    func nanoseconds(ofClock index: Int) -> UInt64? {
        let (scaled, overflow) = Int64(index).multipliedReportingOverflow(by: ticksPerQuarter)
        guard !overflow, scaled / 24 <= endTick else { return nil }
        return SequencerSchedule.nanoseconds(tempoMap.time(atTick: scaled / 24))
    }
}

/// Why a sequence cannot be played to sequencer ports.
public enum SequencerScheduleError: Error, Equatable, CustomStringConvertible {
    /// The song lasts longer than `SequencerSchedule.longestSongNanoseconds` (24 hours).
    case songTooLong(seconds: Double)

    public var description: String {
        switch self {
        case .songTooLong(let seconds):
            let tenthsOfHours = Int(min(max(seconds, 0), 1e15) / 360)
            return "the song lasts \(tenthsOfHours / 10).\(tenthsOfHours % 10) hours; the sequencer plays songs up to 24 hours"
        }
    }
}

/// The notes a track has sounding on each destination, to end them when the schedule stops early.
private struct SoundingNotes {
    private struct Key: Hashable {
        let destination: PortAddress
        let channel: UInt8
        let note: UInt8
    }
    private var counts: [Key: Int] = [:]

    /// Counts a Note On in, a Note Off (or Note On at velocity 0) out.
    mutating func note(_ message: MIDIMessage, to destination: PortAddress) {
        switch message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0:
            counts[Key(destination: destination, channel: channel, note: note), default: 0] += 1
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            let key = Key(destination: destination, channel: channel, note: note)
            if let count = counts[key] { counts[key] = count > 1 ? count - 1 : nil }
        default:
            break
        }
    }

    /// A Note Off for every sounding note (once per Note On), in destination, channel, note order.
    var held: [(message: MIDIMessage, destination: PortAddress)] {
        counts.keys.sorted { ($0.destination, $0.channel, $0.note) < ($1.destination, $1.channel, $1.note) }
            .flatMap { key in
                Array(repeating: (MIDIMessage.noteOff(channel: key.channel, note: key.note, velocity: 0), key.destination),
                      count: counts[key] ?? 0)
            }
    }
}
