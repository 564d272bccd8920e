/// One MIDI message as it travels between endpoints: a channel voice message, a system common or
/// real-time message, or a complete System Exclusive message.
///
/// Channels are 0-based (0...15; MIDI channel 10 is `channel: 9`). Data values are 7-bit (0...127);
/// pitch bend is 14-bit (0...16383, centre 8192).
public enum MIDIMessage: Hashable, Sendable {
    case noteOff(channel: UInt8, note: UInt8, velocity: UInt8)
    case noteOn(channel: UInt8, note: UInt8, velocity: UInt8)
    case polyPressure(channel: UInt8, note: UInt8, pressure: UInt8)
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    case programChange(channel: UInt8, program: UInt8)
    case channelPressure(channel: UInt8, pressure: UInt8)
    case pitchBend(channel: UInt8, value: UInt16)

    /// A complete System Exclusive message, including the leading 0xF0 and the trailing 0xF7.
    case systemExclusive([UInt8])

    // System common.
    case timeCodeQuarterFrame(UInt8)
    case songPosition(UInt16)
    case songSelect(UInt8)
    case tuneRequest

    // System real-time.
    case timingClock
    case start
    case `continue`
    case stop
    case activeSensing
    case systemReset
}

extension MIDIMessage {
    /// The 0-based channel of a channel voice message, `nil` for system messages.
    public var channel: UInt8? {
        switch self {
        case .noteOff(let c, _, _), .noteOn(let c, _, _), .polyPressure(let c, _, _),
             .controlChange(let c, _, _), .programChange(let c, _), .channelPressure(let c, _),
             .pitchBend(let c, _):
            return c
        default:
            return nil
        }
    }

    /// The same message moved to another channel (system messages are returned unchanged).
    public func onChannel(_ channel: UInt8) -> MIDIMessage {
        let c = channel & 0x0F
        switch self {
        case .noteOff(_, let n, let v): return .noteOff(channel: c, note: n, velocity: v)
        case .noteOn(_, let n, let v): return .noteOn(channel: c, note: n, velocity: v)
        case .polyPressure(_, let n, let p): return .polyPressure(channel: c, note: n, pressure: p)
        case .controlChange(_, let cc, let v): return .controlChange(channel: c, controller: cc, value: v)
        case .programChange(_, let p): return .programChange(channel: c, program: p)
        case .channelPressure(_, let p): return .channelPressure(channel: c, pressure: p)
        case .pitchBend(_, let v): return .pitchBend(channel: c, value: v)
        default: return self
        }
    }

    /// True for a note-on with velocity > 0.
    public var isNoteOn: Bool {
        if case .noteOn(_, _, let v) = self { return v > 0 }
        return false
    }

    /// True for a note-off, or a note-on with velocity 0 (which MIDI defines as a note-off).
    public var isNoteOff: Bool {
        switch self {
        case .noteOff: return true
        case .noteOn(_, _, let v): return v == 0
        default: return false
        }
    }

    /// The status byte this message starts with on the wire.
    public var statusByte: UInt8 {
        switch self {
        case .noteOff(let c, _, _): return 0x80 | (c & 0x0F)
        case .noteOn(let c, _, _): return 0x90 | (c & 0x0F)
        case .polyPressure(let c, _, _): return 0xA0 | (c & 0x0F)
        case .controlChange(let c, _, _): return 0xB0 | (c & 0x0F)
        case .programChange(let c, _): return 0xC0 | (c & 0x0F)
        case .channelPressure(let c, _): return 0xD0 | (c & 0x0F)
        case .pitchBend(let c, _): return 0xE0 | (c & 0x0F)
        case .systemExclusive: return 0xF0
        case .timeCodeQuarterFrame: return 0xF1
        case .songPosition: return 0xF2
        case .songSelect: return 0xF3
        case .tuneRequest: return 0xF6
        case .timingClock: return 0xF8
        case .start: return 0xFA
        case .continue: return 0xFB
        case .stop: return 0xFC
        case .activeSensing: return 0xFE
        case .systemReset: return 0xFF
        }
    }

    /// The message as wire bytes, status byte explicit (no running status).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        appendBytes(to: &out)
        return out
    }

    /// Appends the wire bytes of this message (status byte explicit) to `out`.
    public func appendBytes(to out: inout [UInt8]) {
        if case .systemExclusive(let data) = self {
            out.append(contentsOf: data)
        } else {
            out.append(statusByte)
            appendDataBytes(to: &out)
        }
    }

    /// Appends the bytes that follow the status byte on the wire (what a running-status writer
    /// writes); for System Exclusive, the bytes after the leading 0xF0.
    public func appendDataBytes(to out: inout [UInt8]) {
        if case .systemExclusive(let data) = self {
            out.append(contentsOf: data.first == 0xF0 ? data.dropFirst() : data[...])
            return
        }
        let (first, second) = dataBytes
        let count = Self.dataLength(forStatus: statusByte) ?? 0
        if count > 0 { out.append(first) }
        if count > 1 { out.append(second) }
    }

    /// The data bytes after the status byte of a channel or system common message, 7 bits each
    /// (`dataLength(forStatus:)` says how many count; the others are 0): what
    /// `init?(status:data1:data2:)` takes back. (0, 0) for System Exclusive and real-time messages.
    package var dataBytes: (UInt8, UInt8) {
        switch self {
        case .noteOff(_, let a, let b), .noteOn(_, let a, let b), .polyPressure(_, let a, let b),
             .controlChange(_, let a, let b):
            return (a & 0x7F, b & 0x7F)
        case .programChange(_, let a), .channelPressure(_, let a), .timeCodeQuarterFrame(let a), .songSelect(let a):
            return (a & 0x7F, 0)
        case .pitchBend(_, let v), .songPosition(let v):
            return (UInt8(v & 0x7F), UInt8((v >> 7) & 0x7F))
        default:
            return (0, 0)
        }
    }

    /// Number of data bytes that follow `status` in a channel or system common message,
    /// or `nil` for 0xF0 (variable length) and for bytes that are not status bytes.
    public static func dataLength(forStatus status: UInt8) -> Int? {
        switch status {
        case 0x80...0xBF, 0xE0...0xEF: return 2
        case 0xC0...0xDF: return 1
        case 0xF1, 0xF3: return 1
        case 0xF2: return 2
        case 0xF6, 0xF8...0xFF: return 0
        default: return nil
        }
    }

    /// Builds a message from a status byte and its data bytes (as many as `dataLength(forStatus:)`
    /// says). Returns `nil` for 0xF0/0xF7, undefined status bytes (0xF4, 0xF5, 0xF9, 0xFD) and data
    /// bytes with the high bit set.
    public init?(status: UInt8, data1: UInt8 = 0, data2: UInt8 = 0) {
        guard data1 < 0x80, data2 < 0x80 else { return nil }
        let c = status & 0x0F
        switch status {
        case 0x80...0x8F: self = .noteOff(channel: c, note: data1, velocity: data2)
        case 0x90...0x9F: self = .noteOn(channel: c, note: data1, velocity: data2)
        case 0xA0...0xAF: self = .polyPressure(channel: c, note: data1, pressure: data2)
        case 0xB0...0xBF: self = .controlChange(channel: c, controller: data1, value: data2)
        case 0xC0...0xCF: self = .programChange(channel: c, program: data1)
        case 0xD0...0xDF: self = .channelPressure(channel: c, pressure: data1)
        case 0xE0...0xEF: self = .pitchBend(channel: c, value: UInt16(data1) | UInt16(data2) << 7)
        case 0xF1: self = .timeCodeQuarterFrame(data1)
        case 0xF2: self = .songPosition(UInt16(data1) | UInt16(data2) << 7)
        case 0xF3: self = .songSelect(data1)
        case 0xF6: self = .tuneRequest
        case 0xF8: self = .timingClock
        case 0xFA: self = .start
        case 0xFB: self = .continue
        case 0xFC: self = .stop
        case 0xFE: self = .activeSensing
        case 0xFF: self = .systemReset
        default: return nil
        }
    }
}
