/// Peer events in words, for people: which peer (by name and address, or by address when it gave no
/// name) and what happened.
extension NetworkMIDIPeer {
    /// "'Session name'", or "at 10.0.0.2:5004" for a peer that gave no name (one that never answered).
    public var displayName: String {
        name.isEmpty ? "at \(controlAddress)" : "'\(name)'"
    }
}

extension NetworkMIDIPeerEvent.EndReason {
    /// Why the peer left, in words ("it did not answer the invitation"); `"\(reason)"` stays the
    /// case name, as logs and scripts read it.
    public var explanation: String {
        switch self {
        case .endedByPeer: return "it ended the session"
        case .refused: return "it refused the invitation"
        case .invitationTimedOut: return "it did not answer the invitation"
        case .clockSyncTimedOut: return "it stopped answering clock sync"
        case .replaced: return "it reconnected"
        case .disconnected: return "the session ended"
        }
    }
}

extension NetworkMIDIPeerEvent {
    /// "network peer 'Mac' connected from 10.0.0.2:5004", "network peer at 10.0.0.9:5004 left: it
    /// did not answer the invitation" (`"\(event)"` stays the plain case, as logs and scripts read it).
    public var explanation: String {
        switch self {
        case .connected(let peer): return "network peer \(peer.displayName) connected from \(peer.controlAddress)"
        case .ended(let peer, let reason): return "network peer \(peer.displayName) left: \(reason.explanation)"
        }
    }
}
