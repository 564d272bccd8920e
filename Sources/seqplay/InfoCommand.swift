import ArgumentParser
import Foundation
import MIDIFile
import SoundFontFile

/// `seqplay info`: what a MIDI file contains (format, tracks, duration, tempo, signatures, markers,
/// lyrics) and what the reader had to repair.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a MIDI file (tracks, duration, tempo, signatures, markers, lyrics) or a SoundFont (header, presets, zones, samples), and the problems found."
    )

    @Argument(help: "The Standard MIDI File or SoundFont (.sf2, .sf3) to describe.")
    var file: String

    @Flag(help: "Print the report (or the --events list) as JSON.")
    var json = false

    @Flag(help: "List every event (of --track, or of all tracks by time) with its tick, bar:beat:tick and seconds, in mido's names; channels 1-16.")
    var events = false

    @Option(help: ArgumentHelp("With --events: only this track (0-based, as the report numbers them).", valueName: "track"))
    var track: Int?

    @Flag(help: "Refuse files that need repair instead of listing the repairs as warnings.")
    var strict = false

    func validate() throws {
        if track != nil && !events { throw ValidationError("--track goes with --events.") }
    }

    func run() throws {
        if SoundFontContents.isSoundFont(atPath: file) { return try SoundFontInfo.run(path: file, json: json) }
        if events {
            return try listEvents(of: try CommandLineOutput.readMIDIFile(file, strict: strict).sequence)
        }
        // Streamed from the file's bytes: a song of millions of notes is never held as a sequence.
        let report = try CommandLineOutput.reportMIDIFile(file, strict: strict)
        if json {
            print(try CommandLineOutput.json(report))
        } else {
            print(report.humanReadable)
        }
    }

    private func listEvents(of sequence: MusicSequence) throws {
        if let track, !sequence.tracks.indices.contains(track) {
            throw CommandFailure("\(file): no track \(track) (the file has \(sequence.tracks.count))", .usage)
        }
        let listed = sequence.listedEvents(track: track)
        if json {
            print("[\n" + (try listed.map { try CommandLineOutput.json($0, pretty: false) }).joined(separator: ",\n") + "\n]")
        } else {
            print("track\ttick\tbar:beat:tick\tseconds\tevent")
            for event in listed { print(event) }
        }
    }
}
