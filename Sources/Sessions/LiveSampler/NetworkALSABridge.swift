import ALSA
import Foundation
import MIDICore
import NetworkMIDI

/// Shows every peer of a network MIDI session as a port of an ALSA sequencer client, so DAWs and
/// other ALSA programs route MIDI to and from network peers as they do with any MIDI device.
///
/// - Network → ALSA: when a peer connects (`addPort(for:)`), a duplex port named after it appears.
///   Each message received from that peer goes out of the port to its subscribers as soon as the
///   session delivers it: at its scheduled time when the session has a playout latency (the session's
///   playout thread waits for it), as the packet arrives when the latency is 0.
/// - ALSA → network: events other programs send to any of the bridge's ports go to the session,
///   which sends them to **every** connected peer. An RTP-MIDI session has one outgoing stream, so
///   writing to one peer's port reaches all of them.
/// - When the peer leaves (`removePort(for:)`), All Notes Off goes out of its port on all 16
///   channels, then the port is removed (its connections go with it).
///
/// Wiring: deliver the session's messages to the bridge (it is a `NetworkMIDITimedReceiver`), call
/// `addPort`/`removePort` from the session's `onPeerEvent`, then `start(sendingTo:)`. Sends run on the
/// session's network and playout threads under a short lock, never on an audio render thread.
/// Events from ALSA are read on a `SequencerInputThread` and sent with the session's own lock and
/// `sendto`, as any sequencing thread does.
// Why unchecked: `ports`, `failedSends` and the client's output side are used under `lock`; the input thread is started and stopped from one thread.
public final class NetworkALSABridge: NetworkMIDITimedReceiver, @unchecked Sendable {
    /// The sequencer client the ports belong to (as `aconnect -l` lists it).
    public let client: SequencerClient

    /// Guards `ports`, `failedSends` and every use of the client's output side.
    private let lock = NSLock()
    /// Each connected peer's port, by the peer's SSRC.
    private var ports: [UInt32: SequencerPort] = [:]
    private var failedSends = 0
    private var inputThread: SequencerInputThread?

    /// Opens a sequencer client named `clientName`. Throws `SequencerError.notAvailable` where the
    /// machine has no ALSA sequencer.
    public init(clientName: String) throws(SequencerError) {
        client = try SequencerClient(name: clientName)
    }

    /// Starts sending what ALSA programs write to the bridge's ports to `session`.
    public func start(sendingTo session: NetworkMIDISession) throws(SequencerError) {
        inputThread = try SequencerInputThread(client: client, receiver: session)
    }

    /// Stops reading from ALSA and removes the ports of peers still connected (releasing their notes).
    public func stop() {
        inputThread?.stop()
        inputThread = nil
        lock.lock()
        defer { lock.unlock() }
        for ssrc in ports.keys { releaseAndRemovePort(of: ssrc) }
    }

    /// Creates the port for a peer that just connected, named after it ("network peer 1A2B3C4D" when
    /// it gave no name), and returns it.
    @discardableResult
    public func addPort(for peer: NetworkMIDIPeer) throws(SequencerError) -> SequencerPort {
        let name = peer.name.isEmpty ? String(format: "network peer %08X", peer.ssrc) : peer.name
        lock.lock()
        defer { lock.unlock() }
        if ports[peer.ssrc] != nil { releaseAndRemovePort(of: peer.ssrc) }
        let port = try client.createPort(name: name, capabilities: [.output, .input, .duplex])
        ports[peer.ssrc] = port
        return port
    }

    /// Releases the notes of a peer that left and removes its port; returns the port it had, if any.
    @discardableResult
    public func removePort(for peer: NetworkMIDIPeer) -> SequencerPort? {
        lock.withLock { releaseAndRemovePort(of: peer.ssrc) }
    }

    /// What `follow(_:)` did to the ports.
    public enum PortChange: Sendable {
        case added(NetworkMIDIPeer, PortAddress)
        case removed(NetworkMIDIPeer, PortAddress)
        case failed(NetworkMIDIPeer, SequencerError)
    }

    /// Adds the port of a peer that connected or removes that of a peer that left (call it from the
    /// session's `onPeerEvent`); returns what changed, if anything.
    @discardableResult
    public func follow(_ event: NetworkMIDIPeerEvent) -> PortChange? {
        switch event {
        case .connected(let peer):
            do {
                return .added(peer, try addPort(for: peer).address)
            } catch {
                return .failed(peer, error)
            }
        case .ended(let peer, _):
            return removePort(for: peer).map { .removed(peer, $0.address) }
        }
    }

    /// The ports of the peers connected now, by peer SSRC.
    public var peerPorts: [UInt32: SequencerPort] {
        lock.withLock { ports }
    }

    /// Messages the kernel refused so far (no room in its pool, a malformed SysEx).
    public var failedSendCount: Int {
        lock.withLock { failedSends }
    }

    /// Sends `message` out of the port of the peer it came from (dropped if that peer has no port).
    public func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        lock.lock()
        defer { lock.unlock() }
        guard let port = ports[ssrc] else { return }
        send(message, from: port)
    }

    /// A message without a sending peer has no port to go out of; it is dropped.
    public func receive(_ message: MIDIMessage) {}

    // MARK: With `lock` held

    @discardableResult
    private func releaseAndRemovePort(of ssrc: UInt32) -> SequencerPort? {
        guard let port = ports.removeValue(forKey: ssrc) else { return nil }
        for channel in UInt8(0)..<16 {
            send(.controlChange(channel: channel, controller: 123, value: 0), from: port)
        }
        try? client.deletePort(port)  // our own port: fails only if the client itself is gone
        return port
    }

    private func send(_ message: MIDIMessage, from port: SequencerPort) {
        do {
            try client.send(message, from: port)
        } catch {
            failedSends += 1
        }
    }
}
