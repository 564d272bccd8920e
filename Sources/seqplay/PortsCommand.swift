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
            try SequencerCommandSupport.printLine(try CommandLineOutput.json(SequencerPortListing.clients(clients, ports: ports)))
        } else {
            print(SequencerPortListing.table(ports, clients: clients))
        }
    }
}
