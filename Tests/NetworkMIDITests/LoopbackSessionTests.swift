import XCTest
import MIDICore
import SeqplaySupport
@testable import NetworkMIDI
import TestSupport

/// Two sessions in one process talking over 127.0.0.1: the session protocol, clock sync, playout
/// timing, loss repair and peer departure, end to end over real UDP sockets.
final class LoopbackSessionTests: XCTestCase {
    private var sessions: [NetworkMIDISession] = []

    override func tearDown() {
        for session in sessions { session.stop() }
        sessions = []
    }

    private func makePair(listenerConfiguration: NetworkMIDISession.Configuration = testConfiguration(name: "listener"),
                          initiatorConfiguration: NetworkMIDISession.Configuration = testConfiguration(name: "initiator"),
                          listenerReceiver: RecordingReceiver, initiatorReceiver: RecordingReceiver? = nil)
    throws -> (listener: NetworkMIDISession, initiator: NetworkMIDISession) {
        let listener = try NetworkMIDISession(configuration: listenerConfiguration, deliveringTo: listenerReceiver)
        let initiator = try NetworkMIDISession(configuration: initiatorConfiguration, deliveringTo: initiatorReceiver)
        sessions += [listener, initiator]
        initiator.connect(to: listener.controlAddress)
        XCTAssertTrue(initiator.waitForConnectedPeers(1, clockSyncExchanges: 3, timeout: 5))
        XCTAssertTrue(listener.waitForConnectedPeers(1, clockSyncExchanges: 3, timeout: 5))
        return (listener, initiator)
    }

    func testSessionSetUpNamesPeersAndMeasuresClockOffset() throws {
        let (listener, initiator) = try makePair(listenerReceiver: RecordingReceiver())
        let seenByInitiator = try XCTUnwrap(initiator.peers.first)
        let seenByListener = try XCTUnwrap(listener.peers.first)
        XCTAssertEqual(seenByInitiator.name, "listener")
        XCTAssertEqual(seenByListener.name, "initiator")
        XCTAssertTrue(seenByInitiator.isInitiator)
        XCTAssertFalse(seenByListener.isInitiator)
        // Each session's clock starts at a random value: the offsets must mirror each other and match
        // the difference of the two clocks to within a tick or two.
        let now = MonotonicClock.now()
        let trueOffset = Double(Int64(bitPattern: listener.ticks(atMonotonicNanoseconds: now)
                                      &- initiator.ticks(atMonotonicNanoseconds: now))) * 1e-4
        XCTAssertEqual(try XCTUnwrap(seenByInitiator.clockOffset), trueOffset, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(seenByListener.clockOffset), -trueOffset, accuracy: 0.0005)
        XCTAssertLessThan(try XCTUnwrap(seenByInitiator.latency), 0.002)
    }

    func testClockOffsetComesFromTheShortestRoundTripOfTheLastExchanges() {
        let peer = PeerConnection(controlAddress: NetworkMIDIAddress(host: "127.0.0.1", port: 5004)!, token: 1, isInitiator: true,
                                  state: .connected, now: 0, sentPacketIndex: 0, sysExLimit: 1024)
        let second: UInt64 = 1_000_000_000
        // A clean exchange (1 ms round trip), then two a busy host delayed on one leg: offsets 25 and 40 ms off.
        peer.recordClockSync(offsetTicks: 1000, latencyTicks: 5, now: 1 * second)
        peer.recordClockSync(offsetTicks: 1250, latencyTicks: 250, now: 2 * second)
        peer.recordClockSync(offsetTicks: 600, latencyTicks: 400, now: 3 * second)
        XCTAssertEqual(peer.clockOffsetTicks, 1000)
        XCTAssertEqual(peer.latencyTicks, 400, "the latency reported is the latest exchange's")
        // 30 s later the clean exchange has aged out: the best of the recent ones counts.
        peer.recordClockSync(offsetTicks: 1010, latencyTicks: 20, now: 32 * second)
        peer.recordClockSync(offsetTicks: 1100, latencyTicks: 90, now: 33 * second)
        XCTAssertEqual(peer.clockOffsetTicks, 1010)
        XCTAssertEqual(peer.clockSyncExchanges, 5)
    }

    func testEventsArriveInOrderAtTheirTimestampsBothWays() throws {
        let heardByListener = RecordingReceiver(), heardByInitiator = RecordingReceiver()
        let latency = 0.01
        let (listener, initiator) = try makePair(
            listenerConfiguration: testConfiguration(name: "listener", latency: latency),
            initiatorConfiguration: testConfiguration(name: "initiator", latency: latency),
            listenerReceiver: heardByListener, initiatorReceiver: heardByInitiator)
        for (sender, heard) in [(initiator, heardByListener), (listener, heardByInitiator)] {
            var sent: [(MIDIMessage, UInt64)] = []
            for i in 0..<300 {
                let note = UInt8(36 + i % 48)
                let message: MIDIMessage = i % 2 == 0 ? .noteOn(channel: UInt8(i % 16), note: note, velocity: 100)
                                                      : .controlChange(channel: 3, controller: 1, value: UInt8(i % 128))
                sent.append((message, MonotonicClock.now()))
                sender.receive(message)
                usleep(UInt32(500 + (i % 7) * 300))
            }
            XCTAssertTrue(heard.wait(timeout: 5) { $0.events.count >= sent.count })
            let events = heard.events
            XCTAssertEqual(events.map(\.message), sent.map(\.0), "event for event, in order")
            // The times the receiver computes from RTP timestamps and the clock offset: within 2 ms.
            let scheduleErrors = zip(events, sent).map { abs(Double(Int64($0.scheduled) - Int64($1.1)) / 1e9 - latency) }
            XCTAssertLessThan(scheduleErrors.max() ?? 1, 0.002, "received timestamps within 2 ms of the sent ones")
            // The times messages were actually handed over (subject to thread scheduling on a busy machine).
            let deliveryErrors = zip(events, sent).map { abs(Double(Int64($0.time) - Int64($1.1)) / 1e9 - latency) }.sorted()
            XCTAssertLessThan(deliveryErrors[deliveryErrors.count / 2], 0.002, "median delivery within 2 ms of its time")
        }
    }

    func testMessagesStampedAheadArePlayedAtTheirTime() throws {
        let heard = RecordingReceiver()
        let latency = 0.005
        let (_, initiator) = try makePair(listenerConfiguration: testConfiguration(name: "listener", latency: latency),
                                          listenerReceiver: heard)
        let playAt = MonotonicClock.now() + 100_000_000
        initiator.send([.noteOn(channel: 0, note: 72, velocity: 80)], at: playAt)
        XCTAssertTrue(heard.wait(timeout: 2) { !$0.events.isEmpty })
        let event = try XCTUnwrap(heard.events.first)
        XCTAssertEqual(Double(Int64(event.scheduled) - Int64(playAt)) / 1e9, latency, accuracy: 0.002)
        XCTAssertGreaterThanOrEqual(event.time + 1_000_000, playAt, "not handed over before its time")
        XCTAssertEqual(heard.senders, [initiator.ssrc], "the receiver learns which peer sent it")
    }

    func testLongSysExIsSegmentedAndReassembled() throws {
        let heard = RecordingReceiver()
        let (_, initiator) = try makePair(listenerReceiver: heard)
        let body = (0..<20_000).map { UInt8($0 % 128) }
        let sysEx: MIDIMessage = .systemExclusive([0xF0] + body + [0xF7])
        initiator.send([.noteOn(channel: 0, note: 60, velocity: 1), sysEx, .noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertTrue(heard.wait(timeout: 3) { $0.messages.count >= 3 })
        XCTAssertEqual(heard.messages, [.noteOn(channel: 0, note: 60, velocity: 1), sysEx, .noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertGreaterThanOrEqual(initiator.statistics.dataPacketsSent, 22, "20 segments plus the short messages")
    }

    func testSeededTenPercentLossIsRepairedByTheJournal() throws {
        var random = SeededGenerator(seed: 6295)
        var lossyConfiguration = testConfiguration(name: "lossy", latency: 0)
        let dropped = LossPattern(seed: 42, rate: 0.1)
        lossyConfiguration.outgoingDataPacketFilter = { dropped.shouldSend($0) }
        let heard = RecordingReceiver()
        let (listener, initiator) = try makePair(initiatorConfiguration: lossyConfiguration, listenerReceiver: heard)
        for _ in 0..<3000 {
            let channel = UInt8.random(in: 0...15, using: &random)
            let message: MIDIMessage
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4: message = .noteOn(channel: channel, note: UInt8.random(in: 30...90, using: &random),
                                          velocity: UInt8.random(in: 1...127, using: &random))
            case 4..<7: message = .noteOff(channel: channel, note: UInt8.random(in: 30...90, using: &random), velocity: 0)
            case 7: message = .controlChange(channel: channel, controller: UInt8.random(in: 0...100, using: &random),
                                             value: UInt8.random(in: 0...127, using: &random))
            case 8: message = .programChange(channel: channel, program: UInt8.random(in: 0...127, using: &random))
            default: message = .pitchBend(channel: channel, value: UInt16.random(in: 0...16383, using: &random))
            }
            initiator.receive(message)
            if Int.random(in: 0..<20, using: &random) == 0 { usleep(1000) }
        }
        let expected = initiator.sentState
        XCTAssertTrue(heard.wait(timeout: 5) { $0.state == expected }, "receiver state equals sender state: \(differences(heard.state, expected))")
        XCTAssertEqual(heard.state.soundingNotes.count, expected.soundingNotes.count)
        XCTAssertGreaterThan(initiator.statistics.dataPacketsFiltered, 200)
        XCTAssertGreaterThan(listener.statistics.packetsLost, 200)
        XCTAssertGreaterThan(listener.statistics.journalRepairMessages, 0)
    }

    func testNotesAreReleasedWhenThePeerSaysGoodbye() throws {
        let heard = RecordingReceiver()
        let (listener, initiator) = try makePair(listenerReceiver: heard)
        initiator.send([.noteOn(channel: 0, note: 60, velocity: 90), .noteOn(channel: 5, note: 70, velocity: 90)])
        XCTAssertTrue(heard.wait(timeout: 2) { $0.state.soundingNotes.count == 2 })
        initiator.stop()
        XCTAssertTrue(heard.wait(timeout: 2) { $0.state.soundingNotes.isEmpty }, "BY releases the peer's notes")
        XCTAssertTrue(eventually { listener.peers.isEmpty })
    }

    func testNotesAreReleasedWhenClockSyncStops() throws {
        let heard = RecordingReceiver()
        var listenerConfiguration = testConfiguration(name: "listener")
        listenerConfiguration.peerTimeout = 0.5
        var initiatorConfiguration = testConfiguration(name: "initiator")
        initiatorConfiguration.initialClockSyncCount = 3
        initiatorConfiguration.clockSyncInterval = 60
        let events = EventLog()
        listenerConfiguration.onPeerEvent = { events.append($0) }
        let (listener, initiator) = try makePair(listenerConfiguration: listenerConfiguration,
                                                 initiatorConfiguration: initiatorConfiguration, listenerReceiver: heard)
        initiator.receive(.noteOn(channel: 2, note: 64, velocity: 90))
        XCTAssertTrue(heard.wait(timeout: 2) { $0.state.soundingNotes.count == 1 })
        XCTAssertTrue(heard.wait(timeout: 3) { $0.state.soundingNotes.isEmpty }, "a silent peer's notes are released")
        XCTAssertTrue(listener.peers.isEmpty)
        XCTAssertTrue(events.all.contains { if case .ended(_, .clockSyncTimedOut) = $0 { return true } else { return false } })
    }

    func testReinvitationFromARestartedPeerReplacesTheOldConnection() throws {
        let heard = RecordingReceiver()
        let (listener, initiator) = try makePair(listenerReceiver: heard)
        initiator.receive(.noteOn(channel: 0, note: 61, velocity: 90))
        XCTAssertTrue(heard.wait(timeout: 2) { $0.state.soundingNotes.count == 1 })
        // A peer that restarts without BY invites again with a new token: accepted at once.
        initiator.connect(to: listener.controlAddress)
        XCTAssertTrue(eventually { initiator.peers.filter { $0.state == .connected }.count == 2 })
        XCTAssertTrue(heard.wait(timeout: 2) { $0.state.soundingNotes.isEmpty }, "the replaced connection's notes are released")
    }
}

/// Drops a seeded pseudo-random fraction of packets, the same ones on every run.
final class LossPattern: @unchecked Sendable {
    private let lock = NSLock()
    private var random: SeededGenerator
    private let rate: Double

    init(seed: UInt64, rate: Double) {
        random = SeededGenerator(seed: seed)
        self.rate = rate
    }

    func shouldSend(_ sequenceNumber: UInt16) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return Double.random(in: 0..<1, using: &random) >= rate
    }
}

/// Peer events collected from the network thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [NetworkMIDIPeerEvent] = []
    func append(_ event: NetworkMIDIPeerEvent) { lock.lock(); events.append(event); lock.unlock() }
    var all: [NetworkMIDIPeerEvent] { lock.lock(); defer { lock.unlock() }; return events }
}

func differences(_ a: MIDIChannelStates, _ b: MIDIChannelStates) -> String {
    var out: [String] = []
    for i in 0..<2048 where a.noteVelocities[i] != b.noteVelocities[i] { out.append("note \(i / 128)/\(i % 128): \(a.noteVelocities[i]) vs \(b.noteVelocities[i])") }
    for i in 0..<2048 where a.controllerValues[i] != b.controllerValues[i] { out.append("cc \(i / 128)/\(i % 128)") }
    for i in 0..<16 where a.programs[i] != b.programs[i] { out.append("program \(i)") }
    for i in 0..<16 where a.pitchWheels[i] != b.pitchWheels[i] { out.append("wheel \(i)") }
    return out.prefix(10).joined(separator: ", ")
}
