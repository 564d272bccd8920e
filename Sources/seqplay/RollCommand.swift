import Foundation
import ArgumentParser
import Drawing
import MIDIFile
import Pictures
import Player

/// `seqplay roll song.mid -o roll.png|svg|pdf`: a piano-roll picture of a song.
struct RollCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roll",
        abstract: "Draw a piano roll of a MIDI file to a PNG, SVG or PDF file.",
        discussion: """
            Time runs across (bar lines numbered, tempo and time-signature changes marked), pitch up; one colour per
            track (per channel for format 0 files), drums as ticks, velocity as opacity.
              seqplay roll song.mid -o roll.png --start 9:1 --end 17:1 --width 2400
            """
    )

    @Argument(help: "The Standard MIDI File.")
    var file: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The picture: .png, .svg or .pdf.", valueName: "file"))
    var output: String

    @Option(help: "Where the picture starts (seconds or bar:beat[:tick]).")
    var start: PositionArgument?

    @Option(help: "Where the picture ends (seconds or bar:beat[:tick]).")
    var end: PositionArgument?

    @Option(help: "Width in pixels (points for SVG and PDF).")
    var width = 1600

    @Option(help: "Height in pixels (points for SVG and PDF).")
    var height = 800

    func validate() throws {
        guard Canvas.Format(path: output) != nil else { throw ValidationError("-o \(output): the picture must end in .png, .svg or .pdf") }
        guard (100...20_000).contains(width), (100...20_000).contains(height) else {
            throw ValidationError("--width and --height must be 100 to 20000")
        }
    }

    func run() throws {
        let sequence = CommandLineOutput.readMIDIFile(file).sequence
        var roll = PianoRoll(sequence: sequence, title: (file as NSString).lastPathComponent)
        roll.width = width
        roll.height = height
        let map = TempoMap(sequence: sequence.concatenatingPatterns())
        if let start { roll.start = start.position.seconds(in: map) }
        if let end { roll.end = end.position.seconds(in: map) }
        guard roll.end > roll.start else { CommandLineOutput.fail("--end must come after --start", .validationFailure) }
        do {
            try roll.draw(to: output, format: Canvas.Format(path: output)!)
        } catch {
            CommandLineOutput.fail("\(error)", .inputOutput)
        }
    }
}

extension PlaybackPosition {
    /// The position in seconds on `map`.
    func seconds(in map: TempoMap) -> Double {
        switch self {
        case .seconds(let seconds): return seconds
        case .barBeatTick(let position): return map.seconds(atTick: map.tick(at: position))
        @unknown default: return 0
        }
    }
}
