import ArgumentParser
import Control
import Foundation
import MIDIFile
import SeqplayKit

/// What every command says on standard error, and how it exits when it cannot go on.
enum CommandLineOutput {
    /// Writes `seqplay: message` to standard error, on one line: control characters in it (outside
    /// text a client sent: an OSC address, a path) are escaped (`LogText`).
    static func note(_ message: String) {
        writeStandardError(Data("seqplay: \(LogText.escaped(message))\n".utf8))
    }

    /// Says once how many notes `--transpose` moved outside 0...127, which are not `done` ("played").
    static func noteNotesTransposedAway(_ transpose: Int, dropped: Int, _ done: String) {
        guard dropped > 0 else { return }
        note("--transpose \(transpose) moves \(dropped) note\(dropped == 1 ? "" : "s") outside 0...127; they are not \(done)")
    }

    /// Writes `data` to standard output now; a write that fails (a full disk, a closed pipe's
    /// reader gone) throws a failure with status 5. (FileHandle's own `write(_:)` traps instead.)
    static func writeStandardOutput(_ data: Data) throws(CommandFailure) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            throw CommandFailure("cannot write to standard output: \((error as NSError).localizedDescription)", .inputOutput)
        }
    }

    /// Writes `data` to standard error; if that fails there is nowhere left to say so.
    static func writeStandardError(_ data: Data) {
        try? FileHandle.standardError.write(contentsOf: data)
    }

    /// `value` as JSON, as every seqplay command writes it: keys sorted, slashes unescaped, pretty-printed
    /// unless `pretty` is false (one line, for streams of objects).
    static func json(_ value: some Encodable, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                                          : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Flushes standard output and exits with status 5 if anything written to it was lost (a full
    /// disk, `> /dev/full`, a closed descriptor). Every command's output passes through here.
    static func finishStandardOutput() -> CommandFailure? {
        // C's `stdout` (which `print` writes through) is a global Swift 6 will not read directly;
        // its address is found as the linker's.
        guard let symbol = dlsym(nil, "stdout") else { return nil }
        let file = symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>.self).pointee
        guard fflush(file) != 0 || ferror(file) != 0 else { return nil }
        return CommandFailure("cannot write to standard output: \(String(cString: strerror(errno)))", .inputOutput)
    }

    /// Reads the MIDI file at `path`, or throws the reader's one-line message: status 5 when the
    /// file cannot be read, 3 when it is not a MIDI file seqplay can read (`strict`: one that needs repair).
    static func readMIDIFile(_ path: String, strict: Bool = false) throws(CommandFailure) -> MIDIFileReadResult {
        try CommandFailure.mapping { try MIDIFileReader.read(contentsOf: path, mode: strict ? .strict : .lenient) }
    }

    /// The sequence of the MIDI file at `path` (`readMIDIFile`), saying once on stderr when it needed repair.
    static func readSong(_ path: String, strict: Bool) throws(CommandFailure) -> MusicSequence {
        let result = try readMIDIFile(path, strict: strict)
        if !result.warnings.isEmpty {
            let count = result.warnings.count
            note("\(path): repaired \(count) problem\(count == 1 ? "" : "s") (see `seqplay info \(path)`; --strict refuses such files)")
        }
        return result.sequence
    }

    /// The report of the MIDI file at `path`, streamed from the file (`SequenceReport(contentsOf:mode:)`),
    /// or the same failure as `readMIDIFile(_:strict:)`'s.
    static func reportMIDIFile(_ path: String, strict: Bool = false) throws(CommandFailure) -> SequenceReport {
        try CommandFailure.mapping { try SequenceReport(contentsOf: path, mode: strict ? .strict : .lenient) }
    }
}

/// Why a command cannot go on: the one line to print and the exit status, the library's `FailureReport`. Commands
/// throw it (or a library error, which `CommandFailure(mapping:file:command:)` turns into one); only `Seqplay.main`
/// prints it and ends the process.
typealias CommandFailure = FailureReport

extension CommandFailure {
    /// What `body` returns; what it throws becomes `CommandFailure(mapping:file:command:)`.
    static func mapping<Value>(file: String? = nil, command: String? = nil, _ body: () throws -> Value) throws(CommandFailure) -> Value {
        do {
            return try body()
        } catch {
            throw CommandFailure(mapping: error, file: file, command: command)
        }
    }

    /// What `body` returns; what it throws becomes the failure `status` with the error's description after `prefix`.
    static func describing<Value>(_ status: ExitStatus, prefix: String = "", _ body: () throws -> Value) throws(CommandFailure) -> Value {
        do {
            return try body()
        } catch {
            throw CommandFailure(prefix + "\(error)", status)
        }
    }
}
