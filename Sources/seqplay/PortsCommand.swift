import ALSA
import ArgumentParser

/// `seqplay ports`: every sequencer client and port with its capabilities and connections, what
/// `aconnect -l` and `aplaymidi -l` show.
struct PortsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ports",
        abstract: "List the ALSA sequencer clients and ports, with their connections."
    )

    @Flag(help: "Print the list as JSON.")
    var json = false

    func run() throws {
        let client = try SequencerCommandSupport.openClient()
        let clients = client.clients()
        let ports = client.ports()
        if json {
            let listing = clients.map { info in
                ClientListing(info, ports: ports.filter { $0.address.client == info.id })
            }
            try SequencerCommandSupport.printLine(try CommandLineOutput.json(listing))
        } else {
            print(Self.table(ports, clients: clients))
        }
    }

    /// One line per port: address, client and port names as `aplaymidi -l` prints them, then the
    /// direction (`in`: others can write to it, `out`: others can read from it) and connections.
    static func table(_ ports: [SequencerPortInfo], clients: [SequencerClientInfo]) -> String {
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
}

/// A client and its ports in `seqplay ports --json`.
private struct ClientListing: Encodable {
    struct Port: Encodable {
        let address: String
        let port: Int
        let name: String
        let capabilities: [String]
        let types: [String]
        let connectedTo: [String]
        let connectedFrom: [String]
    }

    let client: Int
    let name: String
    let type: String
    let card: Int?
    let pid: Int?
    let ports: [Port]

    init(_ info: SequencerClientInfo, ports: [SequencerPortInfo]) {
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
