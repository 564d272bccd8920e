import XCTest
import Glibc
import MIDICore
import SeqplaySupport
@testable import NetworkMIDI
import TestSupport

/// A peer driven by hand over raw UDP sockets, so tests can send exactly the bytes they want.
final class RawPeer {
    let control: UDPSocket
    let data: UDPSocket
    let ssrc: UInt32 = 0x5EED_0001
    let token: UInt32 = 0x7070_7070
    var sequenceNumber: UInt16 = 100

    init(host: String = "127.0.0.1") throws {
        control = try UDPSocket(bindingTo: NetworkMIDIAddress(host: host, port: 0)!)
        data = try UDPSocket(bindingTo: NetworkMIDIAddress(host: host, port: 0)!)
    }

    /// The next datagram arriving on `socket` within `timeout` seconds, decoded as a session packet.
    func answer(on socket: UDPSocket, timeout: Double = 2) -> SessionPacket? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        while MonotonicClock.now() < deadline {
            _ = waitForReadable([socket], timeoutMilliseconds: 20)
            if let (count, _) = socket.receive(into: &buffer) { return try? SessionPacket(decoding: buffer[0..<count]) }
        }
        return nil
    }

    func invite(_ address: NetworkMIDIAddress, from socket: UDPSocket) -> SessionPacket? {
        socket.send(SessionPacket.invitation(.init(initiatorToken: token, ssrc: ssrc, name: "raw")).encoded, to: address)
        return answer(on: socket)
    }

    /// An RTP-MIDI packet with the next sequence number and `payload` after the RTP header.
    func rtp(_ payload: [UInt8]) -> [UInt8] {
        sequenceNumber &+= 1
        var bytes: [UInt8] = [0x80, 0x61]
        bytes.appendBigEndian(sequenceNumber)
        bytes.appendBigEndian(UInt32(0))
        bytes.appendBigEndian(ssrc)
        return bytes + payload
    }
}

final class HostileInputTests: XCTestCase {
    private var session: NetworkMIDISession!
    private let heard = RecordingReceiver()
    private var peer: RawPeer!

    override func setUpWithError() throws {
        var configuration = testConfiguration(name: "target", latency: 0)
        configuration.maximumSysExLength = 4096
        session = try NetworkMIDISession(configuration: configuration, deliveringTo: heard)
        peer = try RawPeer()
        XCTAssertEqual(peer.invite(session.controlAddress, from: peer.control).map(isAccepted), true)
        XCTAssertEqual(peer.invite(dataAddress, from: peer.data).map(isAccepted), true)
        XCTAssertEqual(session.peers.first?.state, .connected)
    }

    override func tearDown() { session.stop() }

    private var dataAddress: NetworkMIDIAddress { session.controlAddress.withPort(session.controlAddress.port + 1) }

    private func isAccepted(_ packet: SessionPacket) -> Bool {
        if case .accepted = packet { return true } else { return false }
    }

    /// Sends `datagram` and checks that the session counts exactly one more dropped packet.
    private func assertDropped(_ datagram: [UInt8], onDataPort: Bool, _ label: String, line: UInt = #line) {
        let before = session.statistics.packetsDropped
        (onDataPort ? peer.data : peer.control).send(datagram, to: onDataPort ? dataAddress : session.controlAddress)
        XCTAssertTrue(eventually(timeout: 2) { session.statistics.packetsDropped == before + 1 }, "\(label) not dropped", line: line)
        XCTAssertEqual(session.statistics.packetsDropped, before + 1, label, line: line)
    }

    /// After the abuse, a well-formed note still gets through and a new peer can still connect.
    private func assertStillServing() throws {
        let count = heard.messages.count
        peer.data.send(peer.rtp([0x03, 0x90, 0x3C, 0x40]), to: dataAddress)
        XCTAssertTrue(heard.wait(timeout: 2) { $0.messages.count == count + 1 })
        XCTAssertEqual(heard.messages.last, .noteOn(channel: 0, note: 60, velocity: 64))
        let newcomer = try NetworkMIDISession(configuration: testConfiguration(name: "newcomer"), deliveringTo: nil)
        defer { newcomer.stop() }
        newcomer.connect(to: session.controlAddress)
        XCTAssertTrue(newcomer.waitForConnectedPeers(1, timeout: 3))
    }

    func testMalformedDataPacketsAreDroppedAndCounted() throws {
        let table: [(String, [UInt8])] = [
            ("empty datagram", []),
            ("truncated RTP header", [0x80, 0x61, 0x00]),
            ("RTP header without MIDI section", peer.rtp([])),
            ("RTP version 1", [0x40] + peer.rtp([0x00]).dropFirst()),
            ("wrong payload type", [0x80, 0x60] + peer.rtp([0x00]).dropFirst(2)),
            ("CSRC count beyond the packet", [0x8F] + peer.rtp([0x00]).dropFirst()),
            ("padding longer than the packet", [0xA0] + peer.rtp([0x00, 0xC8]).dropFirst()),
            ("extension longer than the packet", [0x90] + peer.rtp([0x00, 0x00, 0xFF, 0xFF]).dropFirst()),
            ("short length beyond the packet", peer.rtp([0x0F, 0x90, 0x3C, 0x40])),
            ("long header cut short", peer.rtp([0x80])),
            ("long length beyond the packet", peer.rtp([0x8F, 0xFF, 0x90, 0x3C, 0x40])),
            ("running status with no status", peer.rtp([0x02, 0x3C, 0x40])),
            ("status byte where data belongs", peer.rtp([0x03, 0x90, 0x3C, 0xC0])),
            ("five-byte delta time", peer.rtp([0x27, 0x81, 0x81, 0x81, 0x81, 0x01, 0xF8, 0xF8])),
            ("undefined status F4", peer.rtp([0x01, 0xF4])),
            ("SysEx without an end", peer.rtp([0x03, 0xF0, 0x01, 0x02])),
            ("channel status inside SysEx", peer.rtp([0x04, 0xF0, 0x01, 0x90, 0xF7])),
            ("journal flag without a journal", peer.rtp([0x43, 0x90, 0x3C, 0x40])),
            ("journal cut after its header", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0x00, 0x01])),
            ("channel journal longer than the packet", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0, 1, 0x00, 0xFF, 0x80, 1, 2, 3])),
            ("channel journal shorter than its header", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0, 1, 0x00, 0x02, 0x00])),
            ("chapter P beyond the channel journal", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0, 1, 0x00, 0x04, 0x80, 0x05])),
            ("chapter N with LOW above HIGH", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0, 1, 0x00, 0x05, 0x08, 0x00, 0x52])),
            ("chapter N note logs beyond the journal", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0, 1, 0x00, 0x05, 0x08, 0x7F, 0xF1])),
            ("system journal longer than the packet", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x40, 0, 1, 0x03, 0xFF])),
            ("channel journals out of order", peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x21, 0, 1,
                                                        0x08, 0x04, 0x02, 0x10, 0x08, 0x04, 0x02, 0x10])),
            ("continuation of a SysEx that never started", peer.rtp([0x03, 0xF7, 0x01, 0xF7])),
            ("data from a stranger", [0x80, 0x61, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0x03, 0x90, 0x3C, 0x40]),
        ]
        for (label, datagram) in table {
            assertDropped(datagram, onDataPort: true, label)
        }
        XCTAssertTrue(heard.messages.isEmpty, "nothing from a rejected packet is delivered")
        try assertStillServing()
    }

    func testMalformedSessionPacketsAreDroppedAndCounted() throws {
        let invitation = SessionPacket.invitation(.init(initiatorToken: 1, ssrc: 2, name: nil)).encoded
        for length in 0..<invitation.count {
            assertDropped(Array(invitation.prefix(length)), onDataPort: false, "IN cut to \(length) bytes")
        }
        let table: [(String, [UInt8], Bool)] = [
            ("unknown command", [0xFF, 0xFF, 0x5A, 0x5A, 0, 0, 0, 2], false),
            ("protocol version 3", [0xFF, 0xFF, 0x49, 0x4E, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2], false),
            ("CK count 3", SessionPacket.clockSync(.init(ssrc: peer.ssrc, count: 0, timestamps: (0, 0, 0))).encoded
                .enumerated().map { $0.offset == 8 ? 3 : $0.element }, true),
            ("CK cut short", Array(SessionPacket.clockSync(.init(ssrc: peer.ssrc, count: 0, timestamps: (0, 0, 0))).encoded.prefix(30)), true),
            ("CK answer to a request never sent", SessionPacket.clockSync(.init(ssrc: peer.ssrc, count: 1, timestamps: (UInt64.max, 5, 0))).encoded, true),
            ("CK confirmation with impossible times", SessionPacket.clockSync(.init(ssrc: peer.ssrc, count: 2, timestamps: (9, 1, 3))).encoded, true),
            ("CK from a stranger", SessionPacket.clockSync(.init(ssrc: 77, count: 0, timestamps: (1, 0, 0))).encoded, true),
            ("RS from a stranger", SessionPacket.receiverFeedback(ssrc: 77, sequenceNumber: 1).encoded, false),
            ("BY from a stranger", SessionPacket.end(.init(initiatorToken: 1, ssrc: 77)).encoded, false),
            ("OK answering nothing", SessionPacket.accepted(.init(initiatorToken: 99, ssrc: 77)).encoded, false),
            ("NO answering nothing", SessionPacket.refused(.init(initiatorToken: 99, ssrc: 77)).encoded, false),
            ("data-port IN without control IN", SessionPacket.invitation(.init(initiatorToken: 5, ssrc: 6)).encoded, true),
            ("60 kB of 0xFF", [UInt8](repeating: 0xFF, count: 60_000), false),
        ]
        for (label, datagram, onDataPort) in table {
            assertDropped(datagram, onDataPort: onDataPort, label)
        }
        XCTAssertEqual(session.peers.count, 1, "the real peer is still there")
        try assertStillServing()
    }

    func testHugeSysExIsCutOffAtTheLimit() throws {
        let segment = [UInt8](repeating: 0x11, count: 1000)
        peer.data.send(peer.rtp([0x83, 0xEA, 0xF0] + segment + [0xF0]), to: dataAddress)
        for _ in 0..<3 { peer.data.send(peer.rtp([0x83, 0xEA, 0xF7] + segment + [0xF0]), to: dataAddress) }
        XCTAssertTrue(eventually { self.session.statistics.dataPacketsReceived == 4 })
        XCTAssertEqual(session.statistics.packetsDropped, 0)
        assertDropped(peer.rtp([0x83, 0xEA, 0xF7] + segment + [0xF7]), onDataPort: true, "SysEx over the 4096-byte limit")
        XCTAssertTrue(heard.messages.isEmpty)
        try assertStillServing()
    }

    func testInvitationFloodIsCappedAtMaximumPeers() throws {
        var strangers: [RawPeer] = []
        for _ in 0..<40 { strangers.append(try RawPeer()) }
        var refused = 0
        for stranger in strangers {
            if case .refused? = stranger.invite(session.controlAddress, from: stranger.control) { refused += 1 }
        }
        XCTAssertEqual(session.peers.count, 32)
        XCTAssertEqual(refused, 40 - 31, "the raw peer holds one of the 32 places")
        XCTAssertEqual(session.statistics.invitationsRefused, refused)
    }

    func testSeededFuzzNeverStopsTheSession() throws {
        var random = SeededGenerator(seed: 4695)
        let valid = peer.rtp([0x43, 0x90, 0x3C, 0x40, 0x20, 0, 1, 0x00, 0x0A, 0x88, 5, 0, 0, 0x01, 0xF1, 0x3C, 0x40])
        XCTAssertNoThrow(try RTPMIDIPacket(decoding: valid[...]))
        let invitation = SessionPacket.invitation(.init(initiatorToken: 1, ssrc: 2, name: "fuzz")).encoded
        let stranger = try RawPeer()
        for round in 0..<3000 {
            // Even rounds: mutated data from the connected peer; odd rounds: mutated invitations from a stranger.
            var datagram = round % 2 == 0 ? valid : invitation
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = Int.random(in: 0..<datagram.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: datagram[position] = UInt8.random(in: 0...255, using: &random)
                case 1: datagram.removeSubrange(position...)
                default: datagram.insert(UInt8.random(in: 0...255, using: &random), at: position)
                }
                if datagram.isEmpty { break }
            }
            if round % 2 == 0 { peer.data.send(datagram, to: dataAddress) }
            else { stranger.control.send(datagram, to: session.controlAddress) }
            if round % 50 == 49 { usleep(2_000) }
        }
        XCTAssertTrue(eventually(timeout: 5) { self.session.statistics.packetsDropped > 1000 },
                      "dropped \(session.statistics.packetsDropped)")
        XCTAssertTrue(session.peers.contains { $0.ssrc == peer.ssrc && $0.state == .connected })
        session.lock.lock()
        peer.sequenceNumber = session.connections.first { $0.ssrc == peer.ssrc }?.lastSequenceNumber ?? 0
        session.lock.unlock()
        try assertStillServing()
    }
}

final class ConnectionPolicyTests: XCTestCase {
    func testPolicyRules() {
        let loopback = NetworkMIDIAddress(host: "127.0.0.1", port: 5004)!
        let lan = NetworkMIDIAddress(host: "192.168.1.20", port: 5004)!
        XCTAssertTrue(NetworkMIDIConnectionPolicy.noOne.allows(loopback), "loopback is always allowed")
        XCTAssertFalse(NetworkMIDIConnectionPolicy.noOne.allows(lan))
        XCTAssertFalse(NetworkMIDIConnectionPolicy.default.allows(lan))
        XCTAssertTrue(NetworkMIDIConnectionPolicy.listedHosts(["192.168.1.20"]).allows(lan))
        XCTAssertFalse(NetworkMIDIConnectionPolicy.listedHosts(["192.168.1.21"]).allows(lan))
        XCTAssertTrue(NetworkMIDIConnectionPolicy.anyone.allows(lan))
    }

    /// A non-loopback IPv4 address of this machine, for inviting from "another host".
    private func nonLoopbackAddress() throws -> String {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { throw XCTSkip("getifaddrs failed") }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { NetworkMIDIAddress($0.pointee) }
                if !ipv4.isLoopback { return ipv4.host }
            }
            cursor = entry.pointee.ifa_next
        }
        throw XCTSkip("this machine has no non-loopback IPv4 address")
    }

    private func invite(withPolicy policy: NetworkMIDIConnectionPolicy, from host: String) throws -> (SessionPacket?, NetworkMIDISession.Statistics) {
        var configuration = testConfiguration(name: "guarded")
        configuration.listenAddress = NetworkMIDIAddress(host: "0.0.0.0", port: 0)!
        configuration.policy = policy
        let session = try NetworkMIDISession(configuration: configuration, deliveringTo: nil)
        defer { session.stop() }
        let peer = try RawPeer(host: host)
        let answer = peer.invite(NetworkMIDIAddress(host: host, port: session.controlAddress.port)!, from: peer.control)
        return (answer, session.statistics)
    }

    func testHostOutsideThePolicyIsRefusedWithNO() throws {
        let host = try nonLoopbackAddress()
        let (answer, statistics) = try invite(withPolicy: .default, from: host)
        guard case .refused(let refusal)? = answer else { return XCTFail("expected NO, got \(String(describing: answer))") }
        XCTAssertEqual(refusal.initiatorToken, 0x7070_7070)
        XCTAssertEqual(statistics.invitationsRefused, 1)
        let (listedAnswer, _) = try invite(withPolicy: .listedHosts([host]), from: host)
        guard case .accepted? = listedAnswer else { return XCTFail("a listed host is accepted") }
        let (loopbackAnswer, _) = try invite(withPolicy: .noOne, from: "127.0.0.1")
        guard case .accepted? = loopbackAnswer else { return XCTFail("loopback is always accepted") }
    }
}
