import ALSA
import ArgumentParser
import Foundation

/// What the sequencer commands (`ports`, `connect`, `monitor`, `loopback`) share: opening the client,
/// resolving ports, printing lines and JSON. Their `SequencerError`s go to the one exit table
/// (`CommandFailure(mapping:)`: 6 when there is no sequencer).
enum SequencerCommandSupport {
    /// Opens the sequencer as client "seqplay" (or `name`); throws `.notAvailable` (status 6) when there is none.
    static func openClient(name: String = "seqplay") throws(SequencerError) -> SequencerClient {
        try SequencerClient(name: name)
    }

    /// The ports `names` name (each may list several, separated by commas), resolved on `client`.
    static func resolve(_ names: [String], on client: SequencerClient) throws(SequencerError) -> [PortAddress] {
        try { () throws(SequencerError) in
            try names.flatMap { $0.split(separator: ",").map(String.init) }.map { (name) throws(SequencerError) in try client.resolve(name) }
        }()
    }

    /// Writes a line to stdout unbuffered, so a pipe or file sees each line as it happens.
    static func printLine(_ line: String) throws(CommandFailure) {
        try CommandLineOutput.writeStandardOutput(Data((line + "\n").utf8))
    }
}
