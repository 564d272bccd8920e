import MIDICore
import NetworkBridge
import NetworkMIDI
import Player
import RealtimeSupport

/// A source of live MIDI for `seqplay serve` and `seqplay monitor`: it pushes every message it
/// receives, stamped with the monotonic time it should sound at, into a `LiveMIDIQueue` that the
/// sampler (or the monitor) drains. The network session is one; an ALSA sequencer input port can be
/// another, feeding the same queue.
protocol LiveMIDIInput: AnyObject {
    /// Where the input listens, for the user ("network session at 127.0.0.1:5004").
    var location: String { get }
    /// A readable name for source number `source` of the events it queued (a peer's name).
    func sourceName(_ source: UInt32) -> String
    /// Stops receiving and says goodbye to whoever is connected.
    func stop()
}

/// A network MIDI session as a live input: messages from every peer go into the queue at their
/// scheduled time (sender's timestamp through the clock-sync offset, plus the playout latency).
/// With an `alsaBridge`, each peer also appears as an ALSA sequencer port while it is connected.
final class NetworkLiveInput: LiveMIDIInput {
    let session: NetworkMIDISession
    private let alsaBridge: NetworkALSABridge?
    /// Peer names already looked up, so events still queued after their peer left keep its name.
    private var knownNames: [UInt32: String] = [:]

    init(configuration: NetworkMIDISession.Configuration, feeding queue: LiveMIDIQueue,
         alsaBridge: NetworkALSABridge? = nil) throws(NetworkMIDIError) {
        self.alsaBridge = alsaBridge
        var configuration = configuration
        if let alsaBridge {
            configuration.onPeerEvent = { [reportPeerEvent = configuration.onPeerEvent] event in
                reportPeerEvent?(event)
                Self.updatePorts(of: alsaBridge, for: event)
            }
        }
        session = try NetworkMIDISession(configuration: configuration,
                                         deliveringTo: QueueingReceiver(queue: queue, alsaBridge: alsaBridge))
        do {
            try alsaBridge?.start(sendingTo: session)
        } catch {
            CommandLineOutput.note("\(error); ALSA programs cannot send to network peers")
        }
    }

    /// Adds or removes the ALSA port of the peer `event` is about, and says so.
    private static func updatePorts(of bridge: NetworkALSABridge, for event: NetworkMIDIPeerEvent) {
        switch event {
        case .connected(let peer):
            do {
                let port = try bridge.addPort(for: peer)
                CommandLineOutput.note("network peer '\(peer.name)' is ALSA port \(port.address)")
            } catch {
                CommandLineOutput.note("no ALSA port for network peer '\(peer.name)': \(error)")
            }
        case .ended(let peer, _):
            if let port = bridge.removePort(for: peer) {
                CommandLineOutput.note("ALSA port \(port.address) of network peer '\(peer.name)' removed")
            }
        }
    }

    var location: String { "network session at \(session.controlAddress)" }

    func sourceName(_ source: UInt32) -> String {
        if let name = knownNames[source] { return name }
        guard let peer = session.peers.first(where: { $0.ssrc == source }) else { return String(format: "%08X", source) }
        knownNames[source] = peer.name
        return peer.name
    }

    func stop() {
        session.stop()
        alsaBridge?.stop()
    }
}

/// Receives from a network session (on its network or playout thread) into a `LiveMIDIQueue`, and
/// passes each message on to the ALSA bridge, if there is one.
private final class QueueingReceiver: NetworkMIDITimedReceiver, @unchecked Sendable {
    let queue: LiveMIDIQueue
    let alsaBridge: NetworkALSABridge?

    init(queue: LiveMIDIQueue, alsaBridge: NetworkALSABridge?) {
        self.queue = queue
        self.alsaBridge = alsaBridge
    }

    func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        queue.push(LiveMIDIEvent(message: message, time: time, source: ssrc))
        alsaBridge?.receive(message, scheduledAt: time, fromPeer: ssrc)
    }

    /// Messages without a time (a session's own note releases) sound at once.
    func receive(_ message: MIDIMessage) {
        queue.push(LiveMIDIEvent(message: message, time: MonotonicClock.now(), source: 0))
    }
}
