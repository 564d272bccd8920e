import ALSA
import LiveInput
import MIDICore
import NetworkMIDI

/// A network MIDI session as a producer of a `LiveMIDIInput`: every peer's messages go to one
/// destination at their scheduled time (the sender's timestamp through the clock sync, plus the
/// session's playout latency) plus a look-ahead; a peer that leaves (BY, clock-sync timeout) has its
/// notes released by the live layer's held-note table, after its last message. The session's own
/// receive path (recovery journal, playout buffer) is unchanged. With a `NetworkALSABridge`, each
/// peer is also an ALSA sequencer port while it is connected.
///
/// The session delivers from one thread (its playout thread, or its network thread with latency 0,
/// then the thread calling `stop()`), the producer's one thread. Do not call the session's
/// `disconnect(from:)` while it runs with latency 0.
public final class NetworkLiveProducer: Sendable {
    public let session: NetworkMIDISession
    public let bridge: NetworkALSABridge?
    /// Why the bridge cannot send ALSA programs' events to the network (nil when it can).
    public var bridgeError: SequencerError? { bridgeStartError }
    private let bridgeStartError: SequencerError?

    /// Opens a session with `configuration` feeding destination `destination` of `input`. Its
    /// `onPeerEvent` is called as before; then the bridge's ports follow the peer, and
    /// `onBridgePortChange` says what changed.
    package init(configuration: NetworkMIDISession.Configuration, feeding input: LiveMIDIInput, destination: Int = 0,
                lookAheadFrames: Int, bridge: NetworkALSABridge? = nil,
                onBridgePortChange: (@Sendable (NetworkALSABridge.PortChange) -> Void)? = nil) throws(NetworkMIDIError) {
        // The producer's queue is pushed from the session's one delivering thread at a time (above), through the receiver.
        let producer = input.addProducer(name: "network session", delivery: .timestamped(lookAheadFrames: lookAheadFrames))
        self.bridge = bridge
        var configuration = configuration
        if let bridge {
            configuration.onPeerEvent = { [reportPeerEvent = configuration.onPeerEvent] event in
                reportPeerEvent?(event)
                if let change = bridge.follow(event) { onBridgePortChange?(change) }
            }
        }
        session = try NetworkMIDISession(configuration: configuration,
                                         deliveringTo: Receiver(producer: producer, destination: destination, bridge: bridge))
        do {
            try bridge?.start(sendingTo: session)
            bridgeStartError = nil
        } catch {
            bridgeStartError = error
        }
    }

    /// Says goodbye to every peer (releasing their notes) and closes the session and the bridge.
    public func stop() {
        session.stop()
        bridge?.stop()
    }
}

/// Hands what the session delivers to the live layer, and to the ALSA bridge if there is one.
private final class Receiver: NetworkMIDITimedReceiver {
    let producer: LiveInputProducer
    let destination: Int
    let bridge: NetworkALSABridge?

    init(producer: LiveInputProducer, destination: Int, bridge: NetworkALSABridge?) {
        self.producer = producer
        self.destination = destination
        self.bridge = bridge
    }

    func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        producer.push(message, at: .monotonic(time), from: ssrc, to: destination)
        bridge?.receive(message, scheduledAt: time, fromPeer: ssrc)
    }

    /// Messages without a sender sound at once.
    func receive(_ message: MIDIMessage) {
        producer.push(message, at: .immediate, from: 0, to: destination)
    }

    var releasesNotesOfLeavingPeers: Bool { true }

    func peerLeft(_ ssrc: UInt32, scheduledAt time: UInt64) {
        producer.sourceLeft(ssrc, at: destination, time: .monotonic(time))
    }
}
