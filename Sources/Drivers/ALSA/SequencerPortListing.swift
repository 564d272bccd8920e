/// The sequencer's clients and ports as `seqplay ports` lists them: a table for people (what
/// `aconnect -l` and `aplaymidi -l` show) or, `Encodable`, one `SequencerPortListing.Client` per client.
///
///     let client = try SequencerClient(name: "lister")
///     print(SequencerPortListing.table(client.ports(), clients: client.clients()))
public enum SequencerPortListing {
    /// One line per port: address, client and port names as `aplaymidi -l` prints them, then the
    /// direction (`in`: others can write to it, `out`: others can read from it) and connections.
    public static func table(_ ports: [SequencerPortInfo], clients: [SequencerClientInfo]) -> String {
        var lines = [" Port    Client name                      Port name                        Dir     Kind    Connections"]
        for port in ports {
            let direction = [port.isWritable ? "in" : nil, port.isReadable ? "out" : nil].compactMap { $0 }
            let kind = clients.first { $0.id == port.address.client }?.kind.rawValue ?? ""
            let connections = port.connectedTo.map { "→ \($0)" } + port.connectedFrom.map { "← \($0)" }
            lines.append(" " + padded("\(port.address)", 7) + " " + padded(port.clientName, 32) + " "
                         + padded(port.name, 32) + " " + padded(direction.joined(separator: "/"), 7) + " "
                         + padded(kind, 7) + " " + connections.joined(separator: ", "))
        }
        return lines.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Every client with its ports, for JSON.
    public static func clients(_ clients: [SequencerClientInfo], ports: [SequencerPortInfo]) -> [Client] {
        clients.map { info in Client(info, ports: ports.filter { $0.address.client == info.id }) }
    }

    /// A client and its ports, as `seqplay ports --json` writes them.
    public struct Client: Encodable, Sendable {
        /// A port of the client.
        public struct Port: Encodable, Sendable {
            public let address: String
            public let port: Int
            public let name: String
            public let capabilities: [String]
            public let types: [String]
            public let connectedTo: [String]
            public let connectedFrom: [String]
        }

        public let client: Int
        public let name: String
        public let type: String
        public let card: Int?
        public let pid: Int?
        public let ports: [Port]

        /// The listing of the client `info` with `ports` (its own).
        public init(_ info: SequencerClientInfo, ports: [SequencerPortInfo]) {
            client = Int(info.id)
            name = info.name
            type = info.kind.rawValue
            card = info.card
            pid = info.processID
            self.ports = ports.map {
                Port(address: "\($0.address)", port: Int($0.address.port), name: $0.name,
                     capabilities: $0.capabilities.names, types: $0.types.names,
                     connectedTo: $0.connectedTo.map(\.description), connectedFrom: $0.connectedFrom.map(\.description))
            }
        }
    }
}
