import ArgumentParser
import Foundation
import MIDIFile
import Player

/// `seqplay convert`: rewrites a MIDI file (format, transpose, cut, rate, mute/solo, merge, quantize)
/// so that it plays as the original does with the same options given to the player.
/// `SequenceConversion` does the work.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Rewrite a MIDI file: format 0/1, transpose, cut, rate, mute/solo, merge, quantize.",
        discussion: """
        The new file plays as the original does with the same options given to
        the player: `seqplay convert in.mid -o out.mid --start 17:1 --rate 1.25`
        then `seqplay out.mid` sounds as `seqplay in.mid --start 17:1 --rate 1.25`.

        Examples:
          seqplay convert song.mid -o song0.mid --format 0     (all tracks in one)
          seqplay convert song0.mid -o split.mid --format 1    (one track per channel)
          seqplay convert song.mid -o verse.mid --start 17:1 --end 33:1
          seqplay convert song.mid -o up.mid --transpose 2 --rate 1.1
          seqplay convert song.mid -o both.mid --merge drums.mid
          seqplay convert take.mid -o tight.mid --quantize 1/16

        In order: --mute/--solo (tracks as `seqplay info` numbers them), --merge
        (the first file's tempo map wins: the other files' events are moved to
        sound at the same seconds), --quantize (note starts to the grid, lengths
        kept), --start/--end (controllers and programs set before the start are
        kept at the start, as the player's chase sends them), --transpose
        (channel 10 stays), --rate (scales the tempo map), --format.
        """
    )

    @Argument(help: "The MIDI file to convert.")
    var input: String

    @Option(name: [.short, .long], help: ArgumentHelp("The MIDI file to write ('-' for standard output).", valueName: "file"))
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp("0: all tracks merged into one; 1: tracks (a format 0 file split by channel). Default: the input's.", valueName: "0|1"))
    var format: Int?

    @OptionGroup var song: SongOptionArguments

    @Option(help: ArgumentHelp("Add the tracks of another MIDI file, re-timed to this file's tempo map; repeat for more.", valueName: "file"))
    var merge: [String] = []

    @Option(help: ArgumentHelp("Move note starts to the nearest 1/N note (1/16, 1/8, 1/12 for eighth triplets), keeping lengths.", valueName: "1/N"))
    var quantize: String?

    @Flag(help: "Refuse MIDI files that need repair instead of repairing them.")
    var strict = false

    func validate() throws {
        if let format, !(0...1).contains(format) { throw ValidationError("--format must be 0 or 1.") }
        _ = try quantizeNoteValue()
    }

    private func quantizeNoteValue() throws -> Int? {
        guard let quantize else { return nil }
        let digits = quantize.hasPrefix("1/") ? String(quantize.dropFirst(2)) : quantize
        guard let value = Int(digits), value > 0 else {
            throw ValidationError("--quantize needs a note value such as 1/16 or 1/8, not '\(quantize)'.")
        }
        return value
    }

    func run() throws {
        let sequence = try read(input)
        var conversion = SequenceConversion()
        conversion.song = song.songOptions
        conversion.merging = try merge.map(read)
        conversion.quantizeNoteValue = try quantizeNoteValue()
        conversion.format = format
        let converted: MusicSequence
        do {
            let conversionResult = try conversion.convert(sequence)
            converted = conversionResult.sequence
            CommandLineOutput.noteNotesTransposedAway(song.transpose, dropped: conversionResult.notesTransposedAway, "written")
        } catch {
            throw CommandFailure("\(input): \(error)", .usage)
        }
        do {
            try MIDIFileWriter.write(converted, to: output, protecting: [input] + merge)
        } catch {
            if case .output = error { throw CommandFailure("\(error)", .inputOutput) }
            throw CommandFailure("\(input): cannot be written as a MIDI file: \(error)", .generic)
        }
    }

    /// Reads a MIDI file, noting (once per file) what the reader repaired.
    private func read(_ path: String) throws(CommandFailure) -> MusicSequence {
        try CommandLineOutput.readSong(path, strict: strict)
    }
}
