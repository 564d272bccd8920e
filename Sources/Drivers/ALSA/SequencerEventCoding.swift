import CALSA
import MIDICore

/// Fills alsa-lib event records from `MIDIMessage`s: type, data, addressing and scheduling.
/// Allocates nothing (System Exclusive data is pointed to, not copied).
enum SequencerEventEncoder {
    /// Returned instead of an alsa-lib result for a System Exclusive message without its F0…F7 frame.
    static let malformedSystemExclusive = Int32.min

    static func address(_ event: inout snd_seq_event_t, from port: UInt8, to destination: SequencerDestination) {
        event.source.port = port
        switch destination {
        case .subscribers:
            event.dest = snd_seq_addr_t(client: UInt8(SND_SEQ_ADDRESS_SUBSCRIBERS), port: UInt8(SND_SEQ_ADDRESS_UNKNOWN))
        case .port(let address):
            event.dest = snd_seq_addr_t(client: address.client, port: address.port)
        }
    }

    static func schedule(_ event: inout snd_seq_event_t, at time: EventTime, queue: UInt8) {
        event.queue = queue
        event.flags &= ~UInt8(SND_SEQ_TIME_STAMP_MASK | SND_SEQ_TIME_MODE_MASK)
        switch time {
        case .tick(let tick):
            event.flags |= UInt8(SND_SEQ_TIME_STAMP_TICK | SND_SEQ_TIME_MODE_ABS)
            event.time.tick = tick
        case .realTime(let nanoseconds):
            event.flags |= UInt8(SND_SEQ_TIME_STAMP_REAL | SND_SEQ_TIME_MODE_ABS)
            event.time.time = realTime(nanoseconds)
        }
    }

    /// `nanoseconds` as the kernel's seconds and nanoseconds, saturating at its latest time (136 years).
    static func realTime(_ nanoseconds: UInt64) -> snd_seq_real_time {
        let seconds = nanoseconds / 1_000_000_000
        guard seconds <= UInt64(UInt32.max) else { return snd_seq_real_time(tv_sec: .max, tv_nsec: 999_999_999) }
        return snd_seq_real_time(tv_sec: UInt32(seconds), tv_nsec: UInt32(nanoseconds % 1_000_000_000))
    }

    /// Encodes `message` into `event` and calls `write` with it while any System Exclusive data it
    /// points to is valid. Returns `write`'s result.
    static func withEncoded(_ message: MIDIMessage, in event: inout snd_seq_event_t,
                            _ write: (UnsafeMutablePointer<snd_seq_event_t>) -> Int32) -> Int32 {
        if case .systemExclusive(let bytes) = message {
            guard bytes.count >= 2, bytes.first == 0xF0, bytes.last == 0xF7 else { return malformedSystemExclusive }
            event.type = kind(SND_SEQ_EVENT_SYSEX)
            return bytes.withUnsafeBytes { data in
                seqplay_seq_ev_set_variable(&event, UInt32(data.count), data.baseAddress)
                return write(&event)
            }
        }
        encodeFixed(message, into: &event)
        return write(&event)
    }

    private static func encodeFixed(_ message: MIDIMessage, into event: inout snd_seq_event_t) {
        switch message {
        case .noteOff(let channel, let note, let velocity):
            setNote(&event, SND_SEQ_EVENT_NOTEOFF, channel, note, velocity)
        case .noteOn(let channel, let note, let velocity):
            setNote(&event, SND_SEQ_EVENT_NOTEON, channel, note, velocity)
        case .polyPressure(let channel, let note, let pressure):
            setNote(&event, SND_SEQ_EVENT_KEYPRESS, channel, note, pressure)
        case .controlChange(let channel, let controller, let value):
            setControl(&event, SND_SEQ_EVENT_CONTROLLER, channel: channel, parameter: UInt32(controller), value: Int32(value))
        case .programChange(let channel, let program):
            setControl(&event, SND_SEQ_EVENT_PGMCHANGE, channel: channel, value: Int32(program))
        case .channelPressure(let channel, let pressure):
            setControl(&event, SND_SEQ_EVENT_CHANPRESS, channel: channel, value: Int32(pressure))
        case .pitchBend(let channel, let value):
            setControl(&event, SND_SEQ_EVENT_PITCHBEND, channel: channel, value: Int32(value & 0x3FFF) - 8192)
        case .timeCodeQuarterFrame(let value):
            setControl(&event, SND_SEQ_EVENT_QFRAME, value: Int32(value))
        case .songPosition(let position):
            setControl(&event, SND_SEQ_EVENT_SONGPOS, value: Int32(position & 0x3FFF))
        case .songSelect(let song):
            setControl(&event, SND_SEQ_EVENT_SONGSEL, value: Int32(song))
        case .tuneRequest: event.type = kind(SND_SEQ_EVENT_TUNE_REQUEST)
        case .timingClock: event.type = kind(SND_SEQ_EVENT_CLOCK)
        case .start: event.type = kind(SND_SEQ_EVENT_START)
        case .continue: event.type = kind(SND_SEQ_EVENT_CONTINUE)
        case .stop: event.type = kind(SND_SEQ_EVENT_STOP)
        case .activeSensing: event.type = kind(SND_SEQ_EVENT_SENSING)
        case .systemReset: event.type = kind(SND_SEQ_EVENT_RESET)
        case .systemExclusive: preconditionFailure("System Exclusive is encoded by withEncoded")
        }
    }

    private static func setNote(_ event: inout snd_seq_event_t, _ type: snd_seq_event_type,
                                _ channel: UInt8, _ note: UInt8, _ velocity: UInt8) {
        event.type = kind(type)
        event.data.note = snd_seq_ev_note_t(channel: channel & 0x0F, note: note & 0x7F, velocity: velocity & 0x7F,
                                            off_velocity: 0, duration: 0)
    }

    private static func setControl(_ event: inout snd_seq_event_t, _ type: snd_seq_event_type,
                                   channel: UInt8 = 0, parameter: UInt32 = 0, value: Int32) {
        event.type = kind(type)
        event.data.control = snd_seq_ev_ctrl_t(channel: channel & 0x0F, unused: (0, 0, 0), param: parameter, value: value)
    }
}

/// Turns received alsa-lib event records back into `SequencerEvent`s. System Exclusive messages the
/// kernel delivers in pieces (as rawmidi drivers do) are put back together; only those allocate.
struct SequencerEventDecoder {
    /// Longest System Exclusive message put back together; longer ones are dropped.
    static let systemExclusiveLimit = 1 << 20

    private var systemExclusive: [UInt8] = []
    private var collectingSystemExclusive = false

    init() {
        systemExclusive.reserveCapacity(4096)
    }

    /// The MIDI message in `event`, or `nil` for non-MIDI events and for the first pieces of a
    /// System Exclusive message.
    mutating func decode(_ event: UnsafePointer<snd_seq_event_t>) -> SequencerEvent? {
        guard let message = message(in: event) else { return nil }
        let e = event.pointee
        var timestamp: EventTime?
        if e.queue != UInt8(SND_SEQ_QUEUE_DIRECT) {
            if e.flags & UInt8(SND_SEQ_TIME_STAMP_MASK) == UInt8(SND_SEQ_TIME_STAMP_REAL) {
                timestamp = .realTime(nanoseconds: UInt64(e.time.time.tv_sec) * 1_000_000_000 + UInt64(e.time.time.tv_nsec))
            } else {
                timestamp = .tick(e.time.tick)
            }
        }
        return SequencerEvent(message: message, source: PortAddress(client: e.source.client, port: e.source.port),
                              port: e.dest.port, timestamp: timestamp)
    }

    private mutating func message(in event: UnsafePointer<snd_seq_event_t>) -> MIDIMessage? {
        let e = event.pointee
        let note = e.data.note
        let control = e.data.control
        let channel = control.channel & 0x0F
        switch e.type {
        case kind(SND_SEQ_EVENT_NOTEON): return .noteOn(channel: channel, note: note.note & 0x7F, velocity: note.velocity & 0x7F)
        case kind(SND_SEQ_EVENT_NOTEOFF): return .noteOff(channel: channel, note: note.note & 0x7F, velocity: note.velocity & 0x7F)
        case kind(SND_SEQ_EVENT_KEYPRESS): return .polyPressure(channel: channel, note: note.note & 0x7F, pressure: note.velocity & 0x7F)
        case kind(SND_SEQ_EVENT_CONTROLLER):
            return .controlChange(channel: channel, controller: UInt8(control.param & 0x7F), value: sevenBits(control.value))
        case kind(SND_SEQ_EVENT_PGMCHANGE): return .programChange(channel: channel, program: sevenBits(control.value))
        case kind(SND_SEQ_EVENT_CHANPRESS): return .channelPressure(channel: channel, pressure: sevenBits(control.value))
        case kind(SND_SEQ_EVENT_PITCHBEND):
            return .pitchBend(channel: channel, value: UInt16(clamping: min(max(control.value + 8192, 0), 16383)))
        case kind(SND_SEQ_EVENT_QFRAME): return .timeCodeQuarterFrame(sevenBits(control.value))
        case kind(SND_SEQ_EVENT_SONGPOS): return .songPosition(UInt16(clamping: min(max(control.value, 0), 16383)))
        case kind(SND_SEQ_EVENT_SONGSEL): return .songSelect(sevenBits(control.value))
        case kind(SND_SEQ_EVENT_TUNE_REQUEST): return .tuneRequest
        case kind(SND_SEQ_EVENT_CLOCK): return .timingClock
        case kind(SND_SEQ_EVENT_START): return .start
        case kind(SND_SEQ_EVENT_CONTINUE): return .continue
        case kind(SND_SEQ_EVENT_STOP): return .stop
        case kind(SND_SEQ_EVENT_SENSING): return .activeSensing
        case kind(SND_SEQ_EVENT_RESET): return .systemReset
        case kind(SND_SEQ_EVENT_SYSEX): return systemExclusivePiece(event)
        default: return nil
        }
    }

    /// Adds one piece of a System Exclusive message; returns the message once its F7 has arrived.
    private mutating func systemExclusivePiece(_ event: UnsafePointer<snd_seq_event_t>) -> MIDIMessage? {
        let length = Int(seqplay_seq_ev_variable_length(event))
        guard length > 0, let data = seqplay_seq_ev_variable_data(event) else { return nil }
        let piece = UnsafeBufferPointer(start: data, count: length)
        if piece.first == 0xF0 {
            systemExclusive.removeAll(keepingCapacity: true)
            collectingSystemExclusive = true
        }
        guard collectingSystemExclusive else { return nil }
        guard systemExclusive.count + length <= Self.systemExclusiveLimit else {
            collectingSystemExclusive = false
            return nil
        }
        systemExclusive.append(contentsOf: piece)
        guard piece.last == 0xF7 else { return nil }
        collectingSystemExclusive = false
        return .systemExclusive(systemExclusive)
    }

    private func sevenBits(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: value) & 0x7F
    }
}

/// The byte alsa-lib stores in `snd_seq_event_t.type` for an event type.
func kind(_ type: snd_seq_event_type) -> UInt8 {
    UInt8(type.rawValue)
}
