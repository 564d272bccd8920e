import ArgumentParser
import Foundation
import MIDIFile

/// `seqplay info`: what a MIDI file contains (format, tracks, duration, tempo, signatures, markers,
/// lyrics) and what the reader had to repair.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a MIDI file (tracks, duration, tempo, signatures, markers, lyrics) or a SoundFont (header, presets, zones, samples), and the problems found."
    )

    @Argument(help: "The Standard MIDI File or SoundFont (.sf2, .sf3) to describe.")
    var file: String

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Refuse files that need repair instead of listing the repairs as warnings.")
    var strict = false

    func run() throws {
        if SoundFontInfo.isSoundFont(file) { return try SoundFontInfo.run(path: file, json: json) }
        let result = CommandLineOutput.readMIDIFile(file, strict: strict)
        let report = SequenceReport(file: file, sequence: result.sequence, warnings: result.warnings.map(\.description))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.humanReadable)
        }
    }
}
