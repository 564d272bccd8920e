import MIDICore

/// One command in an RTP-MIDI command list: a complete MIDI message, or one segment of a System
/// Exclusive message that is too long for a single packet (RFC 6295 §3.2).
package enum RTPMIDICommand: Equatable, Sendable {
    case message(MIDIMessage)
    /// SysEx data bytes (no F0/F7 framing). `isFirst`: the segment opens the message (F0 …);
    /// `isLast`: it closes it (… F7). A complete short SysEx is one segment with both set.
    case sysExSegment(data: [UInt8], isFirst: Bool, isLast: Bool)
    /// The sender abandoned the SysEx message in progress (… F4).
    case sysExCancel
}

/// A command with its time, in RTP timestamp units (100 µs) after the packet's timestamp.
package struct TimedRTPMIDICommand: Equatable, Sendable {
    package var offset: UInt32
    package var command: RTPMIDICommand
}

/// An RTP packet carrying the RTP-MIDI payload (RFC 6295): the 12-byte RTP header, the MIDI command
/// section (command list with delta times and running status, short or long header form) and,
/// when present, the recovery journal.
package struct RTPMIDIPacket: Equatable, Sendable {
    /// The payload type Apple's driver uses (dynamic, 97) and that Wireshark decodes as rtp-midi.
    package static let payloadType: UInt8 = 97
    /// The longest command list the long header form can state.
    package static let maximumCommandListLength = 0x0FFF

    package var sequenceNumber: UInt16
    package var timestamp: UInt32
    package var ssrc: UInt32
    package var commands: [TimedRTPMIDICommand]
    package var journal: RecoveryJournal?

    package init(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                commands: [TimedRTPMIDICommand], journal: RecoveryJournal? = nil) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.commands = commands
        self.journal = journal
    }

    // MARK: Encoding

    /// The packet as sent on the wire. Commands must be in time order; the command list must not
    /// exceed `maximumCommandListLength` bytes (the session splits long SysEx to keep it smaller).
    package var encoded: [UInt8] {
        var out: [UInt8] = [0x80, Self.payloadType]
        out.reserveCapacity(64)
        out.appendBigEndian(sequenceNumber)
        out.appendBigEndian(timestamp)
        out.appendBigEndian(ssrc)
        let list = Self.encodeCommandList(commands)
        precondition(list.count <= Self.maximumCommandListLength, "RTP-MIDI command list too long")
        let journalFlag: UInt8 = journal == nil ? 0 : 0x40
        let firstDeltaFlag: UInt8 = (commands.first?.offset ?? 0) != 0 ? 0x20 : 0
        if list.count <= 15 {
            out.append(journalFlag | firstDeltaFlag | UInt8(list.count))
        } else {
            out.append(0x80 | journalFlag | firstDeltaFlag | UInt8(list.count >> 8))
            out.append(UInt8(truncatingIfNeeded: list.count))
        }
        out.append(contentsOf: list)
        journal?.encode(into: &out)
        return out
    }

    private static func encodeCommandList(_ commands: [TimedRTPMIDICommand]) -> [UInt8] {
        var out: [UInt8] = []
        var runningStatus: UInt8 = 0
        var previousOffset: UInt32 = 0
        for (index, timed) in commands.enumerated() {
            if index > 0 { appendDeltaTime(timed.offset &- previousOffset, to: &out) }
            else if timed.offset != 0 { appendDeltaTime(timed.offset, to: &out) }
            previousOffset = timed.offset
            switch timed.command {
            case .message(let message):
                let start = out.count
                message.appendBytes(to: &out)
                let status = message.statusByte
                if status < 0xF0 {
                    if status == runningStatus { out.remove(at: start) }
                    runningStatus = status
                } else if status < 0xF8 {
                    runningStatus = 0
                }
            case .sysExSegment(let data, let isFirst, let isLast):
                out.append(isFirst ? 0xF0 : 0xF7)
                out.append(contentsOf: data)
                out.append(isLast ? 0xF7 : 0xF0)
                runningStatus = 0
            case .sysExCancel:
                out.append(0xF7); out.append(0xF4)
                runningStatus = 0
            }
        }
        return out
    }

    /// Writes a delta time as 1 to 4 bytes, 7 bits each, most significant first (RFC 6295 §3.1).
    private static func appendDeltaTime(_ delta: UInt32, to out: inout [UInt8]) {
        let value = min(delta, 0x0FFF_FFFF)
        var shift = 21
        while shift > 0 && value >> UInt32(shift) == 0 { shift -= 7 }
        while shift > 0 {
            out.append(0x80 | UInt8((value >> UInt32(shift)) & 0x7F))
            shift -= 7
        }
        out.append(UInt8(value & 0x7F))
    }

    // MARK: Decoding

    /// Decodes one datagram received on a data port, checking every length against the datagram.
    package init(decoding datagram: ArraySlice<UInt8>) throws(NetworkMIDIPacketError) {
        var reader = ByteReader(datagram)
        let first = try reader.u8("RTP header")
        guard first >> 6 == 2 else { throw .invalidValue(field: "RTP version", value: Int(first >> 6)) }
        let payloadType = try reader.u8("RTP header") & 0x7F
        guard payloadType == Self.payloadType else {
            throw .invalidValue(field: "RTP payload type", value: Int(payloadType))
        }
        sequenceNumber = try reader.u16("RTP sequence number")
        timestamp = try reader.u32("RTP timestamp")
        ssrc = try reader.u32("RTP SSRC")
        try reader.skip(Int(first & 0x0F) * 4, "RTP CSRC list")
        if first & 0x10 != 0 {
            try reader.skip(2, "RTP extension profile")
            let words = try reader.u16("RTP extension length")
            try reader.skip(Int(words) * 4, "RTP extension")
        }
        var payloadEnd = datagram.endIndex
        if first & 0x20 != 0 {
            let padding = Int(datagram[datagram.endIndex - 1])
            guard padding >= 1, padding <= reader.remaining else {
                throw .badLength(field: "RTP padding", claimed: padding, available: reader.remaining)
            }
            payloadEnd -= padding
        }
        reader = ByteReader(datagram[reader.position..<payloadEnd])

        let header = try reader.u8("MIDI command section header")
        let hasJournal = header & 0x40 != 0
        let firstHasDelta = header & 0x20 != 0
        var length = Int(header & 0x0F)
        if header & 0x80 != 0 { length = length << 8 | Int(try reader.u8("MIDI command section length")) }
        let list = try reader.take(length, "MIDI command list")
        commands = try Self.decodeCommandList(list, firstHasDelta: firstHasDelta)
        journal = hasJournal ? try RecoveryJournal(decoding: &reader) : nil
    }

    private static func decodeDeltaTime(_ reader: inout ByteReader) throws(NetworkMIDIPacketError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try reader.u8("delta time")
            value = value << 7 | UInt32(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        throw .invalidValue(field: "delta time (more than 4 bytes)", value: Int(value))
    }

    private static func decodeCommandList(_ bytes: ArraySlice<UInt8>,
                                          firstHasDelta: Bool) throws(NetworkMIDIPacketError) -> [TimedRTPMIDICommand] {
        var reader = ByteReader(bytes)
        var commands: [TimedRTPMIDICommand] = []
        var runningStatus: UInt8 = 0
        var offset: UInt32 = 0
        while !reader.isAtEnd {
            if !commands.isEmpty || firstHasDelta { offset &+= try decodeDeltaTime(&reader) }
            var status = try reader.u8("MIDI command")
            var dataFirst: UInt8? = nil
            if status < 0x80 {
                // The first command always carries its status byte (the P flag only says that the
                // original stream had used running status there).
                guard runningStatus != 0 else { throw .invalidValue(field: "running status", value: Int(status)) }
                dataFirst = status
                status = runningStatus
            }
            switch status {
            case 0xF0, 0xF7:
                runningStatus = 0
                try decodeSysEx(opening: status, &reader, offset: offset, into: &commands)
            case 0x80...0xEF, 0xF1...0xF3, 0xF6, 0xF8...0xFF:
                let count = MIDIMessage.dataLength(forStatus: status) ?? 0
                var data: [UInt8] = []
                if let dataFirst { data.append(dataFirst) }
                while data.count < count { data.append(try reader.u8("MIDI data byte")) }
                guard data.allSatisfy({ $0 < 0x80 }),
                      let message = MIDIMessage(status: status, data1: data.first ?? 0, data2: data.count > 1 ? data[1] : 0)
                else { throw .invalidValue(field: "MIDI command \(status)", value: Int(data.max() ?? 0)) }
                if status < 0xF0 { runningStatus = status } else if status < 0xF8 { runningStatus = 0 }
                commands.append(TimedRTPMIDICommand(offset: offset, command: .message(message)))
            default:
                throw .invalidValue(field: "MIDI status byte", value: Int(status))
            }
        }
        return commands
    }

    /// Reads one SysEx command (F0 or F7 already read) up to its closing F7, F0 or F4. Real-time
    /// bytes inside it are commands of their own, delivered at the same time.
    private static func decodeSysEx(opening: UInt8, _ reader: inout ByteReader, offset: UInt32,
                                    into commands: inout [TimedRTPMIDICommand]) throws(NetworkMIDIPacketError) {
        var data: [UInt8] = []
        while true {
            let byte = try reader.u8("System Exclusive command (no closing F7/F0/F4)")
            switch byte {
            case 0x00...0x7F:
                data.append(byte)
            case 0xF8...0xFF:
                if let realTime = MIDIMessage(status: byte) {
                    commands.append(TimedRTPMIDICommand(offset: offset, command: .message(realTime)))
                }
            case 0xF7, 0xF0:
                commands.append(TimedRTPMIDICommand(
                    offset: offset, command: .sysExSegment(data: data, isFirst: opening == 0xF0, isLast: byte == 0xF7)))
                return
            case 0xF4:
                commands.append(TimedRTPMIDICommand(offset: offset, command: .sysExCancel))
                return
            default:
                throw .invalidValue(field: "byte inside System Exclusive", value: Int(byte))
            }
        }
    }
}
