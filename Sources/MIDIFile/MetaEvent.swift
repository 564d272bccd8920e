/// A meta event of a Standard MIDI File (status 0xFF), decoded to a typed value.
///
/// Metas whose length does not fit their type (a tempo of 2 bytes, say) and types the SMF
/// specification does not define are kept as `.raw`, so a file always writes back byte for byte.
public enum MetaEvent: Hashable, Sendable {
    /// 0x00: sequence number; `nil` when the event has no data (number taken from the track index).
    case sequenceNumber(UInt16?)
    /// 0x01...0x0F: text events (text, copyright, track name, instrument, lyric, marker, cue point, …).
    /// The bytes are kept as written: files in the wild use ASCII, Latin-1, UTF-8 or Shift-JIS.
    case text(MetaTextKind, [UInt8])
    /// 0x20: MIDI channel prefix (0...15).
    case channelPrefix(UInt8)
    /// 0x21: MIDI port.
    case port(UInt8)
    /// 0x2F: end of track.
    case endOfTrack
    /// 0x51: set tempo, in microseconds per quarter note.
    case tempo(microsecondsPerQuarter: UInt32)
    /// 0x54: SMPTE offset of the track start.
    case smpteOffset(hours: UInt8, minutes: UInt8, seconds: UInt8, frames: UInt8, subframes: UInt8)
    /// 0x58: time signature; the denominator is `1 << denominatorPower`.
    case timeSignature(numerator: UInt8, denominatorPower: UInt8, clocksPerClick: UInt8, thirtySecondsPerQuarter: UInt8)
    /// 0x59: key signature: sharps (> 0) or flats (< 0), and major or minor.
    case keySignature(sharps: Int8, minor: Bool)
    /// 0x7F: sequencer-specific data.
    case sequencerSpecific([UInt8])
    /// Any other meta type, or a known type whose data has the wrong length, kept as written.
    case raw(type: UInt8, data: [UInt8])
}

/// The kind of a text meta event (meta types 0x01...0x0F).
public struct MetaTextKind: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let text = MetaTextKind(rawValue: 0x01)
    public static let copyright = MetaTextKind(rawValue: 0x02)
    public static let trackName = MetaTextKind(rawValue: 0x03)
    public static let instrumentName = MetaTextKind(rawValue: 0x04)
    public static let lyric = MetaTextKind(rawValue: 0x05)
    public static let marker = MetaTextKind(rawValue: 0x06)
    public static let cuePoint = MetaTextKind(rawValue: 0x07)
    public static let programName = MetaTextKind(rawValue: 0x08)
    public static let deviceName = MetaTextKind(rawValue: 0x09)
}

extension MetaEvent {
    /// The meta type byte (the byte after 0xFF).
    public var typeByte: UInt8 {
        switch self {
        case .sequenceNumber: return 0x00
        case .text(let kind, _): return kind.rawValue
        case .channelPrefix: return 0x20
        case .port: return 0x21
        case .endOfTrack: return 0x2F
        case .tempo: return 0x51
        case .smpteOffset: return 0x54
        case .timeSignature: return 0x58
        case .keySignature: return 0x59
        case .sequencerSpecific: return 0x7F
        case .raw(let type, _): return type
        }
    }

    /// The meta event's data bytes as they are written after the length.
    public var data: [UInt8] {
        switch self {
        case .sequenceNumber(let n): return n.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []
        case .text(_, let bytes): return bytes
        case .channelPrefix(let c): return [c]
        case .port(let p): return [p]
        case .endOfTrack: return []
        case .tempo(let t): return [UInt8((t >> 16) & 0xFF), UInt8((t >> 8) & 0xFF), UInt8(t & 0xFF)]
        case .smpteOffset(let h, let m, let s, let f, let sf): return [h, m, s, f, sf]
        case .timeSignature(let n, let d, let c, let b): return [n, d, c, b]
        case .keySignature(let sf, let mi): return [UInt8(bitPattern: sf), mi ? 1 : 0]
        case .sequencerSpecific(let bytes): return bytes
        case .raw(_, let bytes): return bytes
        }
    }

    /// The text of a text meta event, decoded as UTF-8 when valid, otherwise as Latin-1.
    public var text: String? {
        guard case .text(_, let bytes) = self else { return nil }
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
    }
}
