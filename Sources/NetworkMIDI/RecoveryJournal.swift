/// The recovery journal of an RTP-MIDI packet (RFC 6295 §4–5, appendix A): the sender's MIDI state
/// that changed since the checkpoint packet, so a receiver that lost packets can repair its state
/// from the next packet that arrives.
///
/// This implementation sends channel journals with chapters P (program), C (controllers), W (pitch
/// wheel), N (notes) and T (channel pressure), and no system journal. When decoding it reads those
/// chapters and skips chapters M, E, A and the system journal by their lengths.
package struct RecoveryJournal: Equatable, Sendable {
    /// The first packet whose commands the journal covers.
    package var checkpointSequenceNumber: UInt16
    /// One journal per channel with changes, in ascending channel order (at most 16).
    package var channels: [ChannelJournal]

    package init(checkpointSequenceNumber: UInt16, channels: [ChannelJournal]) {
        self.checkpointSequenceNumber = checkpointSequenceNumber
        self.channels = channels
    }

    /// What one channel's journal says about the sender's state.
    package struct ChannelJournal: Equatable, Sendable {
        package var channel: UInt8
        /// Chapter P: the current program.
        package var program: UInt8?
        /// Chapter C: the latest value of each controller that changed, in ascending controller order.
        package var controllers: [ControllerValue] = []
        /// Chapter W: the current pitch-wheel value (14 bits).
        package var pitchWheel: UInt16?
        /// Chapter N, note logs: notes that are sounding, with their note-on velocity.
        package var notesOn: [NoteVelocity] = []
        /// Chapter N, OFFBITS: notes that were released.
        package var notesOff: [UInt8] = []
        /// Chapter T: the current channel pressure.
        package var channelPressure: UInt8?

        package init(channel: UInt8) { self.channel = channel }

        var isEmpty: Bool {
            program == nil && controllers.isEmpty && pitchWheel == nil && notesOn.isEmpty
                && notesOff.isEmpty && channelPressure == nil
        }
    }

    /// A controller and the value it last had, as chapter C of the journal records it.
    package struct ControllerValue: Equatable, Sendable {
        package var controller: UInt8
        package var value: UInt8
        package init(controller: UInt8, value: UInt8) { self.controller = controller; self.value = value }
    }

    /// A note sounding and its note-on velocity, as chapter N of the journal records it.
    package struct NoteVelocity: Equatable, Sendable {
        package var note: UInt8
        package var velocity: UInt8
        package init(note: UInt8, velocity: UInt8) { self.note = note; self.velocity = velocity }
    }

    // MARK: Encoding

    /// Appends the journal (header, then channel journals) to `out`. All S (single-packet loss)
    /// bits are 0, which tells receivers to use every part of the journal.
    package func encode(into out: inout [UInt8]) {
        precondition(channels.count <= 16, "at most 16 channel journals")
        let channelsFlag: UInt8 = channels.isEmpty ? 0 : 0x20
        out.append(channelsFlag | UInt8(max(channels.count - 1, 0)))
        out.appendBigEndian(checkpointSequenceNumber)
        for channel in channels { channel.encode(into: &out) }
    }

    /// Bytes the encoded journal takes.
    var encodedLength: Int {
        var out: [UInt8] = []
        encode(into: &out)
        return out.count
    }

    // MARK: Decoding

    init(decoding reader: inout ByteReader) throws(NetworkMIDIPacketError) {
        let header = try reader.u8("journal header")
        checkpointSequenceNumber = try reader.u16("journal checkpoint")
        if header & 0x40 != 0 {
            let systemHeader = try reader.u16("system journal header")
            let length = Int(systemHeader & 0x03FF)
            guard length >= 2 else { throw .badLength(field: "system journal", claimed: length, available: reader.remaining + 2) }
            try reader.skip(length - 2, "system journal")
        }
        channels = []
        if header & 0x20 != 0 {
            var previous = -1
            for _ in 0...Int(header & 0x0F) {
                let journal = try ChannelJournal(decoding: &reader)
                guard Int(journal.channel) > previous else {
                    throw .invalidValue(field: "channel journal order", value: Int(journal.channel))
                }
                previous = Int(journal.channel)
                channels.append(journal)
            }
        }
    }
}

extension RecoveryJournal.ChannelJournal {
    private typealias Flag = RecoveryJournalChapterFlag

    func encode(into out: inout [UInt8]) {
        var body: [UInt8] = []
        var flags: UInt8 = 0
        if let program {
            flags |= Flag.p
            body.append(program & 0x7F); body.append(0); body.append(0)
        }
        if !controllers.isEmpty {
            flags |= Flag.c
            body.append(UInt8(controllers.count - 1))
            for log in controllers { body.append(log.controller & 0x7F); body.append(log.value & 0x7F) }
        }
        if let pitchWheel {
            flags |= Flag.w
            body.append(UInt8(pitchWheel & 0x7F)); body.append(UInt8((pitchWheel >> 7) & 0x7F))
        }
        if !notesOn.isEmpty || !notesOff.isEmpty {
            flags |= Flag.n
            encodeChapterN(into: &body)
        }
        if let channelPressure {
            flags |= Flag.t
            body.append(channelPressure & 0x7F)
        }
        let length = body.count + 3
        out.append((channel & 0x0F) << 3 | UInt8(length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(flags)
        out.append(contentsOf: body)
    }

    /// Chapter N: header (B, LEN, LOW, HIGH), note logs (note, Y=1 "play it", velocity), OFFBITS.
    private func encodeChapterN(into out: inout [UInt8]) {
        var low: UInt8 = 15, high: UInt8 = 1
        if let lowest = notesOff.min(), let highest = notesOff.max() { low = lowest / 8; high = highest / 8 }
        if notesOn.count == 128 { high = 0 }
        out.append(UInt8(min(notesOn.count, 127)))
        out.append(low << 4 | high)
        for log in notesOn { out.append(log.note & 0x7F); out.append(0x80 | (log.velocity & 0x7F)) }
        guard low <= high else { return }
        var bits = [UInt8](repeating: 0, count: Int(high - low) + 1)
        for note in notesOff {
            let index = Int(note / 8 - low)
            bits[index] |= 0x80 >> (note % 8)
        }
        out.append(contentsOf: bits)
    }

    init(decoding reader: inout ByteReader) throws(NetworkMIDIPacketError) {
        let first = try reader.u8("channel journal header")
        let second = try reader.u8("channel journal header")
        let flags = try reader.u8("channel journal header")
        let length = Int(first & 0x03) << 8 | Int(second)
        guard length >= 3 else {
            throw .badLength(field: "channel journal", claimed: length, available: reader.remaining + 3)
        }
        var body = ByteReader(try reader.take(length - 3, "channel journal"))
        self.init(channel: (first >> 3) & 0x0F)
        if flags & Flag.p != 0 {
            program = try body.u8("chapter P") & 0x7F
            try body.skip(2, "chapter P")
        }
        if flags & Flag.c != 0 {
            let count = Int(try body.u8("chapter C header") & 0x7F) + 1
            for _ in 0..<count {
                let number = try body.u8("chapter C log") & 0x7F
                let value = try body.u8("chapter C log")
                // A=1 logs use the toggle/count tools for switch controllers; only plain values are used.
                if value & 0x80 == 0 { controllers.append(.init(controller: number, value: value)) }
            }
        }
        if flags & Flag.m != 0 {
            let header = try body.u16("chapter M header")
            let chapterLength = Int(header & 0x03FF)
            guard chapterLength >= 2 else { throw .badLength(field: "chapter M", claimed: chapterLength, available: body.remaining + 2) }
            try body.skip(chapterLength - 2, "chapter M")
        }
        if flags & Flag.w != 0 {
            let lsb = try body.u8("chapter W") & 0x7F, msb = try body.u8("chapter W") & 0x7F
            pitchWheel = UInt16(msb) << 7 | UInt16(lsb)
        }
        if flags & Flag.n != 0 { try decodeChapterN(&body) }
        if flags & Flag.e != 0 {
            let count = Int(try body.u8("chapter E header") & 0x7F) + 1
            try body.skip(count * 2, "chapter E")
        }
        if flags & Flag.t != 0 { channelPressure = try body.u8("chapter T") & 0x7F }
        if flags & Flag.a != 0 {
            let count = Int(try body.u8("chapter A header") & 0x7F) + 1
            try body.skip(count * 2, "chapter A")
        }
        guard body.isAtEnd else {
            throw .badLength(field: "channel journal", claimed: length, available: length - body.remaining)
        }
    }

    private mutating func decodeChapterN(_ body: inout ByteReader) throws(NetworkMIDIPacketError) {
        var count = Int(try body.u8("chapter N header") & 0x7F)
        let lowHigh = try body.u8("chapter N header")
        let low = Int(lowHigh >> 4), high = Int(lowHigh & 0x0F)
        if count == 127 && low == 15 && high == 0 { count = 128 }
        guard low <= high || (low == 15 && high <= 1) else {
            throw .invalidValue(field: "chapter N LOW/HIGH", value: Int(lowHigh))
        }
        for _ in 0..<count {
            let note = try body.u8("chapter N note log") & 0x7F
            let velocity = try body.u8("chapter N note log") & 0x7F
            if velocity > 0 { notesOn.append(.init(note: note, velocity: velocity)) }
        }
        guard low <= high else { return }
        for octet in low...high {
            let bits = try body.u8("chapter N OFFBITS")
            for bit in 0..<8 where bits & (0x80 >> UInt8(bit)) != 0 {
                notesOff.append(UInt8(octet * 8 + bit))
            }
        }
    }
}

/// The chapter bits of a channel journal header: P C M W N E T A.
enum RecoveryJournalChapterFlag {
    static let p: UInt8 = 0x80, c: UInt8 = 0x40, m: UInt8 = 0x20, w: UInt8 = 0x10
    static let n: UInt8 = 0x08, e: UInt8 = 0x04, t: UInt8 = 0x02, a: UInt8 = 0x01
}
