extension MetaEvent {
    /// Decodes a meta event from its type byte and data. Returns `nil` for a defined type whose data
    /// does not fit it (a tempo of 2 bytes, a key signature mode other than 0 or 1); the caller keeps
    /// such an event as `.raw`.
    /// Types the SMF specification does not define decode to `.raw`.
    public init?<Bytes: RandomAccessCollection>(type: UInt8, data: Bytes)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let d = data.startIndex
        switch type {
        case 0x00:
            switch data.count {
            case 0: self = .sequenceNumber(nil)
            case 2: self = .sequenceNumber(UInt16(data[d]) << 8 | UInt16(data[d + 1]))
            default: return nil
            }
        case 0x01...0x0F:
            self = .text(MetaTextKind(rawValue: type), Array(data))
        case 0x20:
            guard data.count == 1 else { return nil }
            self = .channelPrefix(data[d])
        case 0x21:
            guard data.count == 1 else { return nil }
            self = .port(data[d])
        case 0x2F:
            guard data.isEmpty else { return nil }
            self = .endOfTrack
        case 0x51:
            guard data.count == 3 else { return nil }
            self = .tempo(microsecondsPerQuarter: UInt32(data[d]) << 16 | UInt32(data[d + 1]) << 8 | UInt32(data[d + 2]))
        case 0x54:
            guard data.count == 5 else { return nil }
            self = .smpteOffset(hours: data[d], minutes: data[d + 1], seconds: data[d + 2],
                                frames: data[d + 3], subframes: data[d + 4])
        case 0x58:
            guard data.count == 4 else { return nil }
            self = .timeSignature(numerator: data[d], denominatorPower: data[d + 1],
                                  clocksPerClick: data[d + 2], thirtySecondsPerQuarter: data[d + 3])
        case 0x59:
            guard data.count == 2, data[d + 1] <= 1 else { return nil }
            self = .keySignature(sharps: Int8(bitPattern: data[d]), minor: data[d + 1] == 1)
        case 0x7F:
            self = .sequencerSpecific(Array(data))
        default:
            self = .raw(type: type, data: Array(data))
        }
    }
}
