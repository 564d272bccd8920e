import Foundation
import MIDICore
import SeqplaySupport
import TestSupport
@testable import NetworkMIDI

/// A receiver that remembers every message with the monotonic time it arrived, and the MIDI state
/// those messages leave behind.
final class RecordingReceiver: NetworkMIDITimedReceiver, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [(message: MIDIMessage, time: UInt64, scheduled: UInt64)] = []
    private var trackedState = MIDIChannelStates()

    private(set) var senders = Set<UInt32>()

    func receive(_ message: MIDIMessage) {
        receive(message, scheduledAt: 0, fromPeer: 0)
    }

    func receive(_ message: MIDIMessage, scheduledAt scheduled: UInt64, fromPeer ssrc: UInt32) {
        let now = MonotonicClock.now()
        lock.lock()
        recorded.append((message, now, scheduled))
        senders.insert(ssrc)
        trackedState.apply(message)
        lock.unlock()
    }

    /// Messages with the time they arrived and the time the session scheduled them for.
    var events: [(message: MIDIMessage, time: UInt64, scheduled: UInt64)] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    var messages: [MIDIMessage] { events.map(\.message) }

    var state: MIDIChannelStates {
        lock.lock(); defer { lock.unlock() }
        return trackedState
    }

    /// Waits until `condition` holds for this receiver, polling; false on timeout.
    func wait(timeout: Double, until condition: (RecordingReceiver) -> Bool) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        while MonotonicClock.now() < deadline {
            if condition(self) { return true }
            usleep(2_000)
        }
        return condition(self)
    }
}


/// A configuration listening on a free loopback port pair, with quick timers for tests.
func testConfiguration(name: String, latency: Double = 0.01) -> NetworkMIDISession.Configuration {
    var configuration = NetworkMIDISession.Configuration()
    configuration.name = name
    configuration.listenAddress = NetworkMIDIAddress(host: "127.0.0.1", port: 0)!
    configuration.playoutLatency = latency
    configuration.initialClockSyncInterval = 0.05
    configuration.invitationInterval = 0.2
    return configuration
}

/// Polls `condition` until it holds or `timeout` seconds pass.
func eventually(timeout: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
    while MonotonicClock.now() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}
