import CALSA

/// One client of the sequencer as `aconnect -l` shows it: `client 14: 'Midi Through' [type=kernel]`.
public struct SequencerClientInfo: Hashable, Sendable {
    /// Whether the client lives in the kernel (drivers, Midi Through) or is a program.
    public enum Kind: String, Hashable, Sendable {
        case kernel, user
    }

    public let id: UInt8
    public let name: String
    public let kind: Kind
    /// The sound card a kernel client belongs to, if any.
    public let card: Int?
    /// The process of a user client, when the kernel reports it.
    public let processID: Int?
    public let portCount: Int

    init(info: OpaquePointer) {
        id = UInt8(truncatingIfNeeded: snd_seq_client_info_get_client(info))
        name = String(cString: snd_seq_client_info_get_name(info))
        kind = snd_seq_client_info_get_type(info) == SND_SEQ_KERNEL_CLIENT ? .kernel : .user
        let card = snd_seq_client_info_get_card(info)
        self.card = card >= 0 ? Int(card) : nil
        let pid = snd_seq_client_info_get_pid(info)
        processID = pid > 0 ? Int(pid) : nil
        portCount = Int(snd_seq_client_info_get_num_ports(info))
    }
}

/// One port of the sequencer with its connections: a line of `aplaymidi -l` plus the
/// `Connecting To:` / `Connected From:` lines of `aconnect -l`.
public struct SequencerPortInfo: Hashable, Sendable {
    public let address: PortAddress
    public let name: String
    public let clientName: String
    public let capabilities: PortCapabilities
    public let types: PortTypes
    /// Ports this port sends to.
    public let connectedTo: [PortAddress]
    /// Ports this port receives from.
    public let connectedFrom: [PortAddress]

    /// Whether other clients can read from it by connecting it (an output: a keyboard, a player).
    public var isReadable: Bool { capabilities.isSuperset(of: .output) }
    /// Whether other clients can write to it by connecting to it (an input: a synth, Midi Through).
    public var isWritable: Bool { capabilities.isSuperset(of: .input) }

    init(info: OpaquePointer, clientName: String, connections: (to: [PortAddress], from: [PortAddress])) {
        let address = snd_seq_port_info_get_addr(info)!.pointee
        self.address = PortAddress(client: address.client, port: address.port)
        name = String(cString: snd_seq_port_info_get_name(info))
        self.clientName = clientName
        capabilities = PortCapabilities(rawValue: snd_seq_port_info_get_capability(info))
        types = PortTypes(rawValue: snd_seq_port_info_get_type(info))
        connectedTo = connections.to
        connectedFrom = connections.from
    }
}
