/// Why an incoming packet was rejected. A session counts every rejected packet as dropped and keeps
/// serving; `NetworkMIDISession.Statistics.lastDropReason` names the last one.
package enum NetworkMIDIPacketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The packet ended before a field that its own header promises: `field` names the field.
    case truncated(field: String)
    /// A length field says more (or less) than the packet holds.
    case badLength(field: String, claimed: Int, available: Int)
    /// A field holds a value the protocol does not allow.
    case invalidValue(field: String, value: Int)
    /// A session packet with a command this implementation does not know.
    case unknownCommand(UInt16)
    /// A System Exclusive message grew beyond the session's limit while being reassembled.
    case sysExTooLong(limit: Int)
    /// A well-formed packet that does not fit the session's state (e.g. data from an unknown peer).
    case unexpected(String)

    package var description: String {
        switch self {
        case .truncated(let field): return "packet truncated in \(field)"
        case .badLength(let field, let claimed, let available):
            return "\(field) claims \(claimed) bytes but \(available) are available"
        case .invalidValue(let field, let value): return "invalid \(field) value \(value)"
        case .unknownCommand(let command): return "unknown session command 0x\(String(command, radix: 16))"
        case .sysExTooLong(let limit): return "System Exclusive message longer than \(limit) bytes"
        case .unexpected(let what): return what
        }
    }
}

/// Bounds-checked big-endian reading over a received datagram.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    private(set) var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - position }
    var isAtEnd: Bool { position >= bytes.endIndex }

    mutating func u8(_ field: String) throws(NetworkMIDIPacketError) -> UInt8 {
        guard position < bytes.endIndex else { throw .truncated(field: field) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16(_ field: String) throws(NetworkMIDIPacketError) -> UInt16 {
        let high = try u8(field), low = try u8(field)
        return UInt16(high) << 8 | UInt16(low)
    }

    mutating func u32(_ field: String) throws(NetworkMIDIPacketError) -> UInt32 {
        let high = try u16(field), low = try u16(field)
        return UInt32(high) << 16 | UInt32(low)
    }

    mutating func u64(_ field: String) throws(NetworkMIDIPacketError) -> UInt64 {
        let high = try u32(field), low = try u32(field)
        return UInt64(high) << 32 | UInt64(low)
    }

    /// The next `count` bytes, or `.badLength` when fewer remain.
    mutating func take(_ count: Int, _ field: String) throws(NetworkMIDIPacketError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .badLength(field: field, claimed: count, available: remaining)
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func skip(_ count: Int, _ field: String) throws(NetworkMIDIPacketError) {
        _ = try take(count, field)
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8)); append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        appendBigEndian(UInt16(value >> 16)); appendBigEndian(UInt16(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt64) {
        appendBigEndian(UInt32(value >> 32)); appendBigEndian(UInt32(truncatingIfNeeded: value))
    }
}
