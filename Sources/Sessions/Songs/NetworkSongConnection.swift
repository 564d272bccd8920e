import NetworkMIDI
import SeqplaySupport

extension SongSession {
    /// How long a peer has to answer the invitation and complete a clock-sync exchange.
    public static let networkConnectTimeout = 15.0

    /// Opens a network MIDI session and connects it to the peer at `address`; returns once the peer
    /// has answered and synchronised its clock once, so a song can be sent to it. The session listens
    /// on `configuration.listenAddress` (a loopback peer: 127.0.0.1, else 0.0.0.0, on a free port, when
    /// nil). `connecting` hears the local address before the wait; `isCancelled` ends the wait early.
    public static func connectNetwork(to address: NetworkMIDIAddress, configuration: NetworkMIDISession.Configuration,
                                      timeout: Double = networkConnectTimeout, connecting: (NetworkMIDIAddress) -> Void = { _ in },
                                      isCancelled: () -> Bool = { false }) throws(NetworkSongError) -> NetworkMIDISession {
        let session: NetworkMIDISession
        do throws(NetworkMIDIError) {
            session = try NetworkMIDISession(configuration: configuration, deliveringTo: nil)
        } catch {
            throw .unavailable(error)
        }
        connecting(session.controlAddress)
        session.connect(to: address)
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        while MonotonicClock.now() < deadline && !isCancelled() {
            if session.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 0.1) { return session }
        }
        session.stop()
        throw isCancelled() ? .cancelled : .noAnswer(address, seconds: timeout)
    }

    /// The listen address for a session that connects to `peer`: any free port, on loopback for a loopback peer.
    public static func defaultListenAddress(connectingTo peer: NetworkMIDIAddress) -> String {
        peer.isLoopback ? "127.0.0.1:0" : "0.0.0.0:0"
    }
}

/// Why a network MIDI session for a song could not be opened.
public enum NetworkSongError: Error, CustomStringConvertible {
    /// The session cannot be opened (address in use, not a local address, cannot resolve).
    case unavailable(NetworkMIDIError)
    /// The peer did not answer and complete a clock sync within `seconds`.
    case noAnswer(NetworkMIDIAddress, seconds: Double)
    /// The wait was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .unavailable(let error): return "\(error)"
        case .noAnswer(let address, let seconds):
            return "no answer from \(address) within \(Int(seconds)) s (is `seqplay serve --network` or another RTP-MIDI session listening there?)"
        case .cancelled: return "cancelled"
        }
    }
}
