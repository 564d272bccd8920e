import ALSA
import Foundation
import MIDICore
import Sessions
import NetworkMIDI
import XCTest

/// `NetworkALSABridge` against the real sequencer and a real network peer on loopback (runs where
/// /dev/snd/seq exists: Scripts/test-alsa runs it in the alsa-vm).
final class NetworkALSABridgeTests: XCTestCase {
    func testAPeerIsAPortWhileConnectedAndLeavingEndsItsNotes() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: SequencerClient.devicePath), "no ALSA sequencer here")
        let bridge = try NetworkALSABridge(clientName: "bridge test")
        let changes = ChangeLog()
        var hostConfiguration = NetworkMIDISession.Configuration()
        hostConfiguration.name = "bridge host"
        hostConfiguration.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        hostConfiguration.playoutLatency = 0
        hostConfiguration.onPeerEvent = { event in
            if let change = bridge.follow(event) { changes.append(change) }
        }
        let host = try NetworkMIDISession(configuration: hostConfiguration, deliveringTo: bridge)
        defer { host.stop() }
        var peerConfiguration = NetworkMIDISession.Configuration()
        peerConfiguration.name = "bridge peer"
        peerConfiguration.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        let peer = try NetworkMIDISession(configuration: peerConfiguration, deliveringTo: nil)
        peer.connect(to: host.controlAddress)
        XCTAssertTrue(peer.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 15))
        let port = try XCTUnwrap(changes.waitForAdded())
        XCTAssertEqual(bridge.client.portInfo(port)?.name, "bridge peer")

        // Listen to the peer's port as any ALSA program would.
        let listener = try SequencerClient(name: "bridge listener")
        let inbox = try listener.createPort(name: "in", capabilities: .input)
        try listener.connect(from: port, to: inbox.address)
        peer.send([.noteOn(channel: 2, note: 64, velocity: 90), .controlChange(channel: 2, controller: 7, value: 100)])
        var heard: [MIDIMessage] = []
        while heard.count < 2, let event = try listener.nextEvent(timeoutMilliseconds: 5_000) { heard.append(event.message) }
        XCTAssertEqual(heard, [.noteOn(channel: 2, note: 64, velocity: 90), .controlChange(channel: 2, controller: 7, value: 100)])

        peer.stop()  // BY
        heard = []
        while heard.count < 16, let event = try listener.nextEvent(timeoutMilliseconds: 5_000) {
            if case .controlChange(_, 123, _) = event.message { heard.append(event.message) }
        }
        XCTAssertEqual(heard, (0..<16).map { .controlChange(channel: UInt8($0), controller: 123, value: 0) })
        // The bridge removes the port on its own thread once the session reports the peer gone: wait for it.
        let deadline = Date().addingTimeInterval(10)
        while bridge.client.portInfo(port) != nil, Date() < deadline { usleep(10_000) }
        XCTAssertNil(bridge.client.portInfo(port), "the port is gone after the peer left")
        XCTAssertEqual(bridge.peerPorts.count, 0)
    }
}

/// The bridge's port changes, as the session's network thread reports them.
private final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var added: [PortAddress] = []

    func append(_ change: NetworkALSABridge.PortChange) {
        lock.lock()
        defer { lock.unlock() }
        if case .added(_, let port) = change { added.append(port) }
    }

    /// The first port added, waiting up to 10 s for it.
    func waitForAdded() -> PortAddress? {
        for _ in 0..<1000 {
            lock.lock()
            let first = added.first
            lock.unlock()
            if let first { return first }
            usleep(10_000)
        }
        return nil
    }
}
