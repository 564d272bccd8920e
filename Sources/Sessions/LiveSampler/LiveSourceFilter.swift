import ALSA

/// Which sequencer ports a live sampler connects to by itself, at start and when they appear.
public enum LiveSourceFilter: Hashable, Sendable {
    /// Every readable port of a sound card's driver (USB and other hardware keyboards, VirMIDI);
    /// not Midi Through, not the system client, not programs.
    case hardware
    /// Ports whose client or port name starts with one of these names (case-insensitive), or whose
    /// address is one of them (`20:0`).
    case named([String])

    /// Whether `port`, seen by `client`, is a source this filter accepts.
    public func accepts(_ port: SequencerPortInfo, of owner: SequencerClientInfo?) -> Bool {
        guard port.isReadable else { return false }
        switch self {
        case .hardware:
            return owner?.kind == .kernel && owner?.card != nil
        case .named(let names):
            return names.contains { name in
                PortAddress(name) == port.address
                    || port.clientName.lowercased().hasPrefix(name.lowercased())
                    || port.name.lowercased().hasPrefix(name.lowercased())
            }
        }
    }

    /// The ports `client` can see now that this filter accepts, other than `client`'s own.
    public func sources(seenBy client: SequencerClient) -> [PortAddress] {
        let clients = client.clients()
        return client.ports().filter { port in
            port.address.client != client.clientID
                && accepts(port, of: clients.first { $0.id == port.address.client })
        }.map(\.address)
    }

    /// Whether the port at `address` (one that just appeared) is a source this filter accepts.
    public func accepts(_ address: PortAddress, seenBy client: SequencerClient) -> Bool {
        guard address.client != client.clientID, let port = client.portInfo(address) else { return false }
        return accepts(port, of: client.clients().first { $0.id == address.client })
    }
}
