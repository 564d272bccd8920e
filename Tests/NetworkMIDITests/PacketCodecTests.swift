import XCTest
import MIDICore
@testable import NetworkMIDI

final class PacketCodecTests: XCTestCase {
    func testSessionPacketsRoundTrip() throws {
        let exchange = SessionPacket.Exchange(initiatorToken: 0x1234_5678, ssrc: 0xCAFE_F00D, name: "seqplay")
        let packets: [SessionPacket] = [
            .invitation(exchange), .accepted(exchange), .refused(exchange),
            .end(SessionPacket.Exchange(initiatorToken: 1, ssrc: 2)),
            .clockSync(.init(ssrc: 9, count: 1, timestamps: (1, 0x1_0000_0002, 3))),
            .receiverFeedback(ssrc: 9, sequenceNumber: 0xBEEF),
        ]
        for packet in packets {
            XCTAssertEqual(try SessionPacket(decoding: packet.encoded[...]), packet)
        }
    }

    func testInvitationLayoutMatchesAppleDocumentation() {
        let bytes = SessionPacket.invitation(.init(initiatorToken: 0x0102_0304, ssrc: 0x0A0B_0C0D, name: "A")).encoded
        XCTAssertEqual(bytes, [0xFF, 0xFF, 0x49, 0x4E, 0, 0, 0, 2, 1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0x41, 0])
        let rs = SessionPacket.receiverFeedback(ssrc: 1, sequenceNumber: 0x0203).encoded
        XCTAssertEqual(rs, [0xFF, 0xFF, 0x52, 0x53, 0, 0, 0, 1, 2, 3, 0, 0])
        XCTAssertEqual(SessionPacket.clockSync(.init(ssrc: 1, count: 0, timestamps: (5, 0, 0))).encoded.count, 36)
    }

    func testDecodesHandWrittenPacketWithRunningStatusAndDeltaTimes() throws {
        // RTP header (seq 7, timestamp 1000, SSRC 0x11223344), short header LEN=7:
        // 90 3C 40 (note on), delta 2, 3E 40 (running status), delta 0x81 0x00 = 128, 80 3C 00.
        let bytes: [UInt8] = [0x80, 0x61, 0x00, 0x07, 0x00, 0x00, 0x03, 0xE8, 0x11, 0x22, 0x33, 0x44,
                              0x0B, 0x90, 0x3C, 0x40, 0x02, 0x3E, 0x40, 0x81, 0x00, 0x80, 0x3C, 0x00]
        let packet = try RTPMIDIPacket(decoding: bytes[...])
        XCTAssertEqual(packet.sequenceNumber, 7)
        XCTAssertEqual(packet.timestamp, 1000)
        XCTAssertEqual(packet.ssrc, 0x1122_3344)
        XCTAssertNil(packet.journal)
        XCTAssertEqual(packet.commands, [
            TimedRTPMIDICommand(offset: 0, command: .message(.noteOn(channel: 0, note: 60, velocity: 64))),
            TimedRTPMIDICommand(offset: 2, command: .message(.noteOn(channel: 0, note: 62, velocity: 64))),
            TimedRTPMIDICommand(offset: 130, command: .message(.noteOff(channel: 0, note: 60, velocity: 0))),
        ])
    }

    func testRTPPacketRoundTripUsesRunningStatusAndLongHeader() throws {
        var commands = (0..<20).map { i in
            TimedRTPMIDICommand(offset: UInt32(i * 3), command: .message(.noteOn(channel: 2, note: UInt8(40 + i), velocity: 90)))
        }
        commands.append(TimedRTPMIDICommand(offset: 70, command: .message(.timingClock)))
        commands.append(TimedRTPMIDICommand(offset: 70_000, command: .message(.pitchBend(channel: 2, value: 9000))))
        commands.append(TimedRTPMIDICommand(offset: 70_000, command: .sysExSegment(data: [1, 2, 3], isFirst: true, isLast: true)))
        let packet = RTPMIDIPacket(sequenceNumber: 65535, timestamp: 0xFFFF_FFF0, ssrc: 3, commands: commands)
        let bytes = packet.encoded
        XCTAssertEqual(bytes[12] & 0x80, 0x80, "more than 15 bytes of commands need the long header")
        // 20 note-ons with running status: 3 bytes for the first, 2 for the others, plus delta times.
        XCTAssertLessThan(bytes.count, 12 + 2 + 3 + 19 * 3 + 30)
        XCTAssertEqual(try RTPMIDIPacket(decoding: bytes[...]), packet)
    }

    func testFirstCommandWithDeltaTimeSetsZFlag() throws {
        let packet = RTPMIDIPacket(sequenceNumber: 1, timestamp: 0, ssrc: 1,
                                   commands: [TimedRTPMIDICommand(offset: 5, command: .message(.start))])
        let bytes = packet.encoded
        XCTAssertEqual(bytes[12] & 0x20, 0x20)
        XCTAssertEqual(try RTPMIDIPacket(decoding: bytes[...]), packet)
    }

    func testSysExSegmentsAndEmbeddedRealTime() throws {
        // F0 01 02 F8 03 F0 : first segment with an embedded timing clock.
        let bytes: [UInt8] = [0x80, 0x61, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x06, 0xF0, 0x01, 0x02, 0xF8, 0x03, 0xF0]
        let packet = try RTPMIDIPacket(decoding: bytes[...])
        XCTAssertEqual(packet.commands.map(\.command), [
            .message(.timingClock), .sysExSegment(data: [1, 2, 3], isFirst: true, isLast: false),
        ])
        var reassembler = SysExReassembler(limit: 100)
        XCTAssertNil(try reassembler.add([1, 2, 3], isFirst: true, isLast: false))
        XCTAssertNil(try reassembler.add([4], isFirst: false, isLast: false))
        XCTAssertEqual(try reassembler.add([5], isFirst: false, isLast: true), [0xF0, 1, 2, 3, 4, 5, 0xF7])
        XCTAssertThrowsError(try reassembler.add([6], isFirst: false, isLast: true))
    }

    func testJournalRoundTripWithEveryChapter() throws {
        var channel = RecoveryJournal.ChannelJournal(channel: 9)
        channel.program = 12
        channel.controllers = [.init(controller: 7, value: 100), .init(controller: 64, value: 127)]
        channel.pitchWheel = 0x2001
        channel.notesOn = [.init(note: 36, velocity: 100), .init(note: 38, velocity: 1)]
        channel.notesOff = [42, 46, 49]
        channel.channelPressure = 55
        var other = RecoveryJournal.ChannelJournal(channel: 0)
        other.notesOff = [0, 127]
        let journal = RecoveryJournal(checkpointSequenceNumber: 4321, channels: [other, channel])
        let noteOn = TimedRTPMIDICommand(offset: 0, command: .message(.noteOn(channel: 0, note: 1, velocity: 1)))
        let packet = RTPMIDIPacket(sequenceNumber: 4400, timestamp: 1, ssrc: 1, commands: [noteOn], journal: journal)
        let decoded = try RTPMIDIPacket(decoding: packet.encoded[...])
        XCTAssertEqual(decoded.journal, journal)
    }

    func testJournalSenderCoversOnlyChangesSinceCheckpointAndStaysInBudget() {
        var sender = JournalSender()
        sender.record(.noteOn(channel: 0, note: 60, velocity: 100), inPacket: 1)
        sender.record(.controlChange(channel: 0, controller: 7, value: 90), inPacket: 2)
        sender.record(.noteOff(channel: 0, note: 60, velocity: 0), inPacket: 3)
        var journal = sender.journal(sequenceNumberOf: { UInt16($0) }, byteBudget: 1000)
        XCTAssertEqual(journal.channels.first?.notesOff, [60])
        XCTAssertEqual(journal.channels.first?.controllers, [.init(controller: 7, value: 90)])
        sender.advanceCheckpoint(to: 3)
        journal = sender.journal(sequenceNumberOf: { UInt16($0) }, byteBudget: 1000)
        XCTAssertEqual(journal.checkpointSequenceNumber, 3)
        XCTAssertNil(journal.channels.first?.controllers.first, "controller 7 changed before the checkpoint")
        for index in 0..<2000 {
            let c = UInt8(index % 16), n = UInt8(index % 128)
            sender.record(.noteOn(channel: c, note: n, velocity: 1 + UInt8(index % 100)), inPacket: UInt64(10 + index))
            sender.record(.controlChange(channel: c, controller: UInt8(index % 100), value: 5), inPacket: UInt64(10 + index))
        }
        XCTAssertLessThanOrEqual(sender.journal(sequenceNumberOf: { UInt16(truncatingIfNeeded: $0) }, byteBudget: 600).encodedLength, 600)
    }

    func testRepairFromJournalReleasesAndRestartsNotes() {
        var receiver = MIDIChannelStates()
        receiver.apply(.noteOn(channel: 1, note: 50, velocity: 80))
        var entry = RecoveryJournal.ChannelJournal(channel: 1)
        entry.notesOff = [50]
        entry.notesOn = [.init(note: 52, velocity: 70)]
        entry.controllers = [.init(controller: 64, value: 0)]
        let repairs = receiver.repair(from: RecoveryJournal(checkpointSequenceNumber: 0, channels: [entry]))
        XCTAssertEqual(repairs, [.controlChange(channel: 1, controller: 64, value: 0),
                                 .noteOff(channel: 1, note: 50, velocity: 0),
                                 .noteOn(channel: 1, note: 52, velocity: 70)])
        XCTAssertEqual(receiver.soundingNotes.map(\.note), [52])
    }

    func testAddressesResolveAndBadOnesAreNamed() throws {
        XCTAssertEqual(try NetworkMIDIAddress.resolve("127.0.0.1:5004"), NetworkMIDIAddress(host: "127.0.0.1", port: 5004))
        XCTAssertEqual(try NetworkMIDIAddress.resolve("localhost:5006").port, 5006)
        XCTAssertTrue(try NetworkMIDIAddress.resolve("localhost:5006").isLoopback)
        XCTAssertThrowsError(try NetworkMIDIAddress.resolve("127.0.0.1")) { error in
            XCTAssertEqual(error as? NetworkMIDIError, .badAddress("127.0.0.1", reason: "expected HOST:PORT"))
        }
        XCTAssertThrowsError(try NetworkMIDIAddress.resolve("no-such-host.invalid:5004"))
        XCTAssertThrowsError(try NetworkMIDISession(configuration: {
            var configuration = NetworkMIDISession.Configuration()
            configuration.listenAddress = NetworkMIDIAddress(host: "192.0.2.123", port: 5004)!
            return configuration
        }(), deliveringTo: nil), "binding an address this machine does not have fails with a typed error")
    }
}
