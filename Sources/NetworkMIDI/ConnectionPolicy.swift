/// Who may connect to a listening session, like MIDINetworkSession's connection policy. Hosts on
/// the loopback network (127.0.0.0/8) are always allowed so that two processes on one machine can
/// talk without configuration.
public enum NetworkMIDIConnectionPolicy: Equatable, Sendable {
    /// Only loopback peers.
    case noOne
    /// Loopback peers and the listed hosts (dotted-quad IPv4 addresses).
    case listedHosts([String])
    /// Any host.
    case anyone

    /// The default: listed hosts, with an empty list (so only loopback).
    public static let `default` = NetworkMIDIConnectionPolicy.listedHosts([])

    /// Whether an invitation from `host` is accepted.
    public func allows(_ host: NetworkMIDIAddress) -> Bool {
        if host.isLoopback { return true }
        switch self {
        case .noOne: return false
        case .listedHosts(let hosts): return hosts.contains(host.host)
        case .anyone: return true
        }
    }
}
