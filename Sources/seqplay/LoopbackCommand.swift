import ALSA
import ArgumentParser
import Foundation

/// `seqplay loopback`: a port pair that echoes everything written to its input port out of its
/// output port, through a `SequencerInputThread` driving a `SequencerOutputPort`.
struct LoopbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loopback",
        abstract: "Create an ALSA sequencer port pair that echoes its input to its output."
    )

    @Option(help: "The client name other programs see.")
    var name = "seqplay loopback"

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    func validate() throws {
        try FlagRange.seconds(duration, "--duration", above: 0)
    }

    func run() throws {
        let client = try SequencerCommandSupport.openClient(name: name)
        let (input, output, thread) = try { () throws(SequencerError) in
            let input = try client.createPort(name: "in", capabilities: .input)
            let output = try SequencerOutputPort(client: client, name: "out")
            let thread = try SequencerInputThread(client: client, receiver: output)
            return (input, output, thread)
        }()
        try SequencerCommandSupport.printLine("\(input.address) → \(output.port.address)")
        if let duration {
            Thread.sleep(forTimeInterval: duration)  // Kept: the run's length, not a poll; a signal ends the process as before.
        } else {
            while true { pause() }
        }
        thread.stop()
    }
}
