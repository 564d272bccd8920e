import MIDICore

/// How a Standard MIDI File counts time: ticks per quarter note, or SMPTE frames and ticks per frame.
public enum Division: Hashable, Sendable {
    /// Metrical time: ticks per quarter note (PPQN), 1...32767.
    case ticksPerQuarter(UInt16)
    /// Time-code based: frames per second (24, 25, 29 for 29.97 drop-frame, 30) and ticks per frame.
    case smpte(framesPerSecond: UInt8, ticksPerFrame: UInt8)

    /// The ticks that count as a quarter note: the PPQN, or for SMPTE timing one second's worth of
    /// frames (30 for 29.97 drop-frame, whose 30 frames last 1.001 s) times the ticks per frame.
    /// Bars, beats, quantizing and the JACK timebase all measure with this one number.
    public var ticksPerQuarterNote: Int64 {
        switch self {
        case .ticksPerQuarter(let ppq): Int64(max(1, ppq))
        case .smpte(let fps, let ticksPerFrame): Int64(fps == 29 ? 30 : max(1, fps)) * Int64(max(1, ticksPerFrame))
        }
    }
}

/// One event of a track as a Standard MIDI File stores it.
public enum SequenceEvent: Hashable, Sendable {
    /// A channel message (or, from an F7 escape that carries one, a system message).
    case midi(MIDIMessage)
    /// An F0 SysEx event: the bytes written after its length, normally ending with 0xF7.
    /// `sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7])` is the GM System On message.
    case sysEx([UInt8])
    /// An F7 event: a SysEx continuation packet or an escape carrying any bytes, as written after its length.
    case escape([UInt8])
    /// A meta event.
    case meta(MetaEvent)
}

/// An event at an absolute position, in ticks from the start of its track.
public struct TimedEvent: Hashable, Sendable {
    public var tick: Int64
    public var event: SequenceEvent

    public init(tick: Int64, _ event: SequenceEvent) {
        self.tick = tick; self.event = event
    }
}

/// One track of a sequence: events in tick order (events at the same tick keep their order).
public struct MusicTrack: Hashable, Sendable {
    public var events: [TimedEvent]

    public init(events: [TimedEvent] = []) {
        self.events = events
    }
}

/// A song as the player and the file codec see it: format, time division and tracks.
///
/// Format 0 has one track; format 1 has tracks played together (tempo in any of them applies to all);
/// format 2 has independent single-track patterns.
public struct MusicSequence: Hashable, Sendable {
    public var format: Int
    public var division: Division
    public var tracks: [MusicTrack]

    public init(format: Int = 1, division: Division = .ticksPerQuarter(480), tracks: [MusicTrack] = []) {
        self.format = format; self.division = division; self.tracks = tracks
    }
}

extension MusicTrack {
    /// This track as `MIDIFileWriter` writes it (and a reader reads it back): its events without End
    /// of Track, then one End of Track at the later of the last event's tick and its own.
    public func endingWithEndOfTrack() -> MusicTrack {
        var result = MusicTrack(events: events.filter { $0.event != .meta(.endOfTrack) })
        let tick = events.last?.tick ?? 0
        result.events.append(TimedEvent(tick: tick, .meta(.endOfTrack)))
        return result
    }
}
