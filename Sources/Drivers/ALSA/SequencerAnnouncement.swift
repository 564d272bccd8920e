import CALSA

/// A change to the sequencer's clients, ports or connections, as the system announce port (0:1)
/// broadcasts it to the clients connected to it (`SequencerClient.listenToAnnouncements`).
public enum SequencerAnnouncement: Hashable, Sendable {
    case clientStarted(client: UInt8)
    case clientExited(client: UInt8)
    case portStarted(PortAddress)
    case portExited(PortAddress)
    case subscribed(source: PortAddress, destination: PortAddress)
    case unsubscribed(source: PortAddress, destination: PortAddress)

    /// The announcement an alsa-lib event carries, or `nil` for every other event.
    init?(_ event: UnsafePointer<snd_seq_event_t>) {
        let e = event.pointee
        let address = PortAddress(client: e.data.addr.client, port: e.data.addr.port)
        let connection = e.data.connect
        let source = PortAddress(client: connection.sender.client, port: connection.sender.port)
        let destination = PortAddress(client: connection.dest.client, port: connection.dest.port)
        switch e.type {
        case kind(SND_SEQ_EVENT_CLIENT_START): self = .clientStarted(client: address.client)
        case kind(SND_SEQ_EVENT_CLIENT_EXIT): self = .clientExited(client: address.client)
        case kind(SND_SEQ_EVENT_PORT_START): self = .portStarted(address)
        case kind(SND_SEQ_EVENT_PORT_EXIT): self = .portExited(address)
        case kind(SND_SEQ_EVENT_PORT_SUBSCRIBED): self = .subscribed(source: source, destination: destination)
        case kind(SND_SEQ_EVENT_PORT_UNSUBSCRIBED): self = .unsubscribed(source: source, destination: destination)
        default: return nil
        }
    }
}

/// What arrives at a client's ports: a MIDI message, or an announcement from the system.
public enum SequencerInput: Hashable, Sendable {
    case midi(SequencerEvent)
    case announcement(SequencerAnnouncement)
}

extension PortAddress {
    /// The system announce port, which broadcasts `SequencerAnnouncement`s.
    public static let systemAnnounce = PortAddress(client: 0, port: 1)
}
