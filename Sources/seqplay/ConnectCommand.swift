import ALSA
import ArgumentParser

/// `seqplay connect SRC DST`: connects two sequencer ports (what `aconnect` does), or with
/// `--disconnect` removes the connection.
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect (or disconnect) two ALSA sequencer ports.",
        discussion: "Ports are written as every ALSA tool writes them: 14:0, 'Midi Through:0', or a client name (port 0)."
    )

    @Argument(help: "The sending port.")
    var source: String

    @Argument(help: "The receiving port.")
    var destination: String

    @Flag(name: [.short, .long], help: "Remove the connection instead of making it.")
    var disconnect = false

    func run() throws {
        let client = try SequencerCommandSupport.openClient()
        try { () throws(SequencerError) in
            let from = try client.resolve(source)
            let to = try client.resolve(destination)
            if disconnect {
                try client.disconnect(from: from, to: to)
            } else {
                try client.connect(from: from, to: to)
            }
        }()
    }
}
