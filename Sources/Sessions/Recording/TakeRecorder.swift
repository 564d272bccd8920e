import MIDICore
import MIDIFile

/// Turns MIDI messages stamped with a clock (nanoseconds) into a one-track Standard MIDI File
/// sequence, cutting out the pauses so the parts recorded before and after a pause join seamlessly.
///
/// Pure bookkeeping, no I/O: `SequencerTakeRecording` feeds it events with their kernel timestamps
/// and asks it for the sequence to save. Notes still held when a pause starts (or the take ends) are
/// ended there, so the file has no hanging notes.
///
/// The order messages arrive in is their order in the take: a stamp earlier than one already recorded
/// counts as that one's time. The kernel's queue clock can step back by up to one timer period (1 ms
/// at the default 1000 Hz) when a timer interrupt comes late: between interrupts it interpolates with
/// the system clock, and the interrupt then advances it by whole periods only. A note-off 67 µs after
/// its note-on could otherwise be written a tick before it.
public struct TakeRecorder: Sendable {
    /// The file's resolution.
    public let ticksPerQuarter: UInt16
    /// The tempo the take is written at (it sets how clock time becomes ticks).
    public let microsecondsPerQuarter: UInt32
    public let timeSignature: TimeSignature

    /// The messages kept so far, at their tick in the take.
    private var events: [TimedEvent] = []
    /// Clock time the pause in progress started, if any.
    private var pauseStart: UInt64?
    /// The pauses that have ended, in clock time: cut out of the take; events stamped inside one are dropped.
    private var pauses: [(start: UInt64, end: UInt64)] = []
    /// Notes sounding in the take, as `channel * 128 + note`.
    private var heldNotes = Set<UInt16>()
    /// The latest tick written.
    public private(set) var lastTick: Int64 = 0
    /// The latest clock time recorded: later stamps never count as earlier than this.
    private var latestTime: UInt64 = 0

    public init(ticksPerQuarter: UInt16 = 480, beatsPerMinute: Double = 120,
                timeSignature: TimeSignature = TimeSignature(numerator: 4, denominator: 4)) {
        self.ticksPerQuarter = ticksPerQuarter
        microsecondsPerQuarter = UInt32((60_000_000 / beatsPerMinute).rounded())
        self.timeSignature = timeSignature
    }

    /// Whether a pause is in progress.
    public var isPaused: Bool { pauseStart != nil }

    /// Messages recorded so far (the notes ended at pauses included).
    public var eventCount: Int { events.count }

    /// Seconds of clock time cut out by pauses so far.
    public var pausedSeconds: Double { Double(pauses.reduce(0) { $0 + $1.end - $1.start }) / 1e9 }

    /// Records `message`, which arrived at clock time `time`. Messages arriving during a pause and
    /// system real-time messages (clock, active sensing) are dropped.
    public mutating func record(_ message: MIDIMessage, at stamp: UInt64) {
        let time = max(stamp, latestTime)
        guard let tick = tick(at: time) else { return }
        latestTime = time
        switch message {
        case .timingClock, .activeSensing, .start, .continue, .stop, .systemReset, .tuneRequest: return
        default: break
        }
        switch message {
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            let key = UInt16(channel) << 7 | UInt16(note)
            if message.isNoteOn { heldNotes.insert(key) } else { heldNotes.remove(key) }
        default: break
        }
        append(message, at: tick)
    }

    /// Starts a pause at clock time `time` (or the latest message's, if later): notes still held end there.
    public mutating func pause(at stamp: UInt64) {
        let time = max(stamp, latestTime)
        guard pauseStart == nil, let tick = tick(at: time) else { return }
        endHeldNotes(at: tick)
        pauseStart = time
    }

    /// Ends the pause in progress at clock time `time`; what follows continues the take where it paused.
    public mutating func resume(at time: UInt64) {
        guard let start = pauseStart else { return }
        pauseStart = nil
        let end = max(time, start)
        pauses.append((start, end))
    }

    /// The take so far as a format 0 file: tempo and time signature at tick 0, the messages, notes
    /// still held ended at `time` (or the last message), end of track.
    public func sequence(endingAt time: UInt64? = nil) -> MusicSequence {
        var copy = self
        let endTick = max(time.flatMap { copy.tick(at: $0) } ?? lastTick, lastTick)
        copy.endHeldNotes(at: endTick)
        var track = MusicTrack(events: [
            TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: microsecondsPerQuarter))),
            TimedEvent(tick: 0, .meta(.timeSignature(numerator: timeSignature.numerator,
                                                     denominatorPower: timeSignature.denominatorPower,
                                                     clocksPerClick: 24, thirtySecondsPerQuarter: 8))),
        ])
        track.events += copy.events
        track.events.append(TimedEvent(tick: endTick, .meta(.endOfTrack)))
        return MusicSequence(format: 0, division: .ticksPerQuarter(ticksPerQuarter), tracks: [track])
    }

    /// The tick of clock time `time` in the take, or `nil` when it falls in a pause.
    private func tick(at time: UInt64) -> Int64? {
        if let pauseStart, time >= pauseStart { return nil }
        var cut: UInt64 = 0
        for pause in pauses {
            if time >= pause.end { cut += pause.end - pause.start } else if time >= pause.start { return nil }
        }
        let microseconds = Double(time - min(cut, time)) / 1000
        return Int64((microseconds * Double(ticksPerQuarter) / Double(microsecondsPerQuarter)).rounded())
    }

    private mutating func endHeldNotes(at tick: Int64) {
        for held in heldNotes.sorted() {
            append(.noteOff(channel: UInt8(held >> 7), note: UInt8(held & 0x7F), velocity: 0), at: tick)
        }
        heldNotes.removeAll()
    }

    /// Appends at `tick`, which is never before the last event's (clock times are kept in arrival order).
    private mutating func append(_ message: MIDIMessage, at tick: Int64) {
        let event: SequenceEvent
        if case .systemExclusive(let bytes) = message {
            event = .sysEx(Array(bytes.dropFirst()))
        } else {
            event = .midi(message)
        }
        events.append(TimedEvent(tick: tick, event))
        lastTick = tick
    }
}

/// A time signature as musicians write it: 3/4, 6/8.
public struct TimeSignature: Hashable, Sendable, CustomStringConvertible {
    public let numerator: UInt8
    /// A power of two, 1...64.
    public let denominator: UInt8

    public init(numerator: UInt8, denominator: UInt8) {
        self.numerator = numerator; self.denominator = denominator
    }

    /// Reads `"3/4"`; `nil` unless the numerator is 1...255 and the denominator a power of two up to 64.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let numerator = UInt8(parts[0]), numerator > 0,
              let denominator = UInt8(parts[1]), [1, 2, 4, 8, 16, 32, 64].contains(denominator) else { return nil }
        self.init(numerator: numerator, denominator: denominator)
    }

    /// The SMF encoding of the denominator: 2 to this power.
    public var denominatorPower: UInt8 { UInt8(denominator.trailingZeroBitCount) }

    public var description: String { "\(numerator)/\(denominator)" }
}
