/// One packet of Apple's network MIDI session protocol ("AppleMIDI"), which sets up, keeps and ends
/// RTP-MIDI sessions. Every such packet starts with the signature 0xFFFF and a two-letter command.
///
/// Layouts (big-endian), after signature and command:
/// - `IN` invitation, `OK` accepted, `NO` refused, `BY` end: protocol version (2, 32 bits), initiator
///   token (32), sender SSRC (32), then an optional NUL-terminated UTF-8 name.
/// - `CK` clock sync: sender SSRC (32), count (8: 0, 1 or 2), padding (24), three 64-bit timestamps in
///   units of 100 µs.
/// - `RS` receiver feedback: sender SSRC (32), the highest RTP sequence number received (upper 16 bits of
///   a 32-bit field).
package enum SessionPacket: Equatable, Sendable {
    case invitation(Exchange)
    case accepted(Exchange)
    case refused(Exchange)
    case end(Exchange)
    case clockSync(ClockSync)
    case receiverFeedback(ssrc: UInt32, sequenceNumber: UInt16)

    /// The common body of IN, OK, NO and BY (made in this module: its memberwise init).
    package struct Exchange: Equatable, Sendable {
        package var protocolVersion: UInt32 = 2
        package var initiatorToken: UInt32
        package var ssrc: UInt32
        package var name: String?
    }

    /// A CK packet: `count` says how many timestamps are valid (0: only the first, 1: two, 2: all three).
    /// Made in this module (its memberwise init).
    package struct ClockSync: Equatable, Sendable {
        package var ssrc: UInt32
        package var count: UInt8
        package var timestamps: (UInt64, UInt64, UInt64)

        package static func == (a: ClockSync, b: ClockSync) -> Bool {
            a.ssrc == b.ssrc && a.count == b.count && a.timestamps == b.timestamps
        }
    }

    static let signature: UInt16 = 0xFFFF
    static let maximumNameLength = 256

    private enum Command: UInt16 {
        case invitation = 0x494E, accepted = 0x4F4B, refused = 0x4E4F, end = 0x4259
        case clockSync = 0x434B, receiverFeedback = 0x5253
    }

    /// True when `datagram` starts with the session-protocol signature (as opposed to an RTP packet).
    package static func isSessionPacket(_ datagram: ArraySlice<UInt8>) -> Bool {
        datagram.count >= 2 && datagram[datagram.startIndex] == 0xFF && datagram[datagram.startIndex + 1] == 0xFF
    }

    /// Decodes one datagram, rejecting anything truncated, oversized or unknown.
    package init(decoding datagram: ArraySlice<UInt8>) throws(NetworkMIDIPacketError) {
        var reader = ByteReader(datagram)
        let signature = try reader.u16("signature")
        guard signature == Self.signature else { throw .invalidValue(field: "signature", value: Int(signature)) }
        let rawCommand = try reader.u16("command")
        guard let command = Command(rawValue: rawCommand) else { throw .unknownCommand(rawCommand) }
        switch command {
        case .invitation, .accepted, .refused, .end:
            let exchange = try Self.decodeExchange(&reader)
            switch command {
            case .invitation: self = .invitation(exchange)
            case .accepted: self = .accepted(exchange)
            case .refused: self = .refused(exchange)
            default: self = .end(exchange)
            }
        case .clockSync:
            let ssrc = try reader.u32("CK SSRC")
            let count = try reader.u8("CK count")
            guard count <= 2 else { throw .invalidValue(field: "CK count", value: Int(count)) }
            try reader.skip(3, "CK padding")
            let t1 = try reader.u64("CK timestamp 1"), t2 = try reader.u64("CK timestamp 2")
            let t3 = try reader.u64("CK timestamp 3")
            self = .clockSync(ClockSync(ssrc: ssrc, count: count, timestamps: (t1, t2, t3)))
        case .receiverFeedback:
            let ssrc = try reader.u32("RS SSRC")
            let sequence = try reader.u32("RS sequence number")
            self = .receiverFeedback(ssrc: ssrc, sequenceNumber: UInt16(sequence >> 16))
        }
    }

    private static func decodeExchange(_ reader: inout ByteReader) throws(NetworkMIDIPacketError) -> Exchange {
        let version = try reader.u32("protocol version")
        guard version == 2 else { throw .invalidValue(field: "protocol version", value: Int(version)) }
        let token = try reader.u32("initiator token")
        let ssrc = try reader.u32("SSRC")
        guard !reader.isAtEnd else { return Exchange(initiatorToken: token, ssrc: ssrc) }
        let rest = try reader.take(min(reader.remaining, maximumNameLength), "name")
        let nameBytes = rest.prefix { $0 != 0 }
        return Exchange(initiatorToken: token, ssrc: ssrc, name: String(decoding: nameBytes, as: UTF8.self))
    }

    /// The packet as sent on the wire.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(Self.signature)
        switch self {
        case .invitation(let e): Self.encode(.invitation, e, into: &out)
        case .accepted(let e): Self.encode(.accepted, e, into: &out)
        case .refused(let e): Self.encode(.refused, e, into: &out)
        case .end(let e): Self.encode(.end, e, into: &out)
        case .clockSync(let ck):
            out.appendBigEndian(Command.clockSync.rawValue)
            out.appendBigEndian(ck.ssrc)
            out.append(ck.count); out.append(contentsOf: [0, 0, 0])
            out.appendBigEndian(ck.timestamps.0)
            out.appendBigEndian(ck.timestamps.1)
            out.appendBigEndian(ck.timestamps.2)
        case .receiverFeedback(let ssrc, let sequence):
            out.appendBigEndian(Command.receiverFeedback.rawValue)
            out.appendBigEndian(ssrc)
            out.appendBigEndian(UInt32(sequence) << 16)
        }
        return out
    }

    private static func encode(_ command: Command, _ exchange: Exchange, into out: inout [UInt8]) {
        out.appendBigEndian(command.rawValue)
        out.appendBigEndian(exchange.protocolVersion)
        out.appendBigEndian(exchange.initiatorToken)
        out.appendBigEndian(exchange.ssrc)
        if let name = exchange.name {
            out.append(contentsOf: name.utf8.prefix(maximumNameLength - 1))
            out.append(0)
        }
    }
}
