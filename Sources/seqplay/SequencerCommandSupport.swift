import ALSA
import ArgumentParser
import Foundation

/// What the sequencer commands (`ports`, `connect`, `monitor`, `loopback`) share: opening the
/// client and turning sequencer errors into a message on stderr and an exit status.
enum SequencerCommandSupport {
    /// Opens the sequencer as client "seqplay" (or `name`); exits with status 6 when there is none.
    static func openClient(name: String = "seqplay") throws -> SequencerClient {
        do {
            return try SequencerClient(name: name)
        } catch {
            throw exit(for: error)
        }
    }

    /// Prints `error` on stderr and returns the exit status that goes with it.
    static func exit(for error: SequencerError) -> ExitCode {
        CommandLineOutput.writeStandardError(Data("seqplay: \(error)\n".utf8))
        if case .notAvailable = error { return .sequencerNotAvailable }
        return .generic
    }

    /// Runs `body`, turning a `SequencerError` into a message and an exit status.
    static func run<T>(_ body: () throws(SequencerError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw exit(for: error)
        }
    }

    /// The ports `names` name (each may list several, separated by commas), resolved on `client`.
    static func resolve(_ names: [String], on client: SequencerClient) throws -> [PortAddress] {
        try run { () throws(SequencerError) in
            try names.flatMap { $0.split(separator: ",").map(String.init) }.map { (name) throws(SequencerError) in try client.resolve(name) }
        }
    }

    /// Writes a line to stdout unbuffered, so a pipe or file sees each line as it happens.
    static func printLine(_ line: String) throws(CommandFailure) {
        try CommandLineOutput.writeStandardOutput(Data((line + "\n").utf8))
    }

    /// Pretty-printed, key-sorted JSON, as every seqplay command writes it.
    static func json<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                                          : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
