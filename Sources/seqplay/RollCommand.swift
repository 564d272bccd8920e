import Foundation
import ArgumentParser
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

    @OptionGroup var picture: PictureOutput

    @OptionGroup var region: SongRegionArguments

    func run() throws {
        let sequence = try CommandLineOutput.readMIDIFile(file).sequence
        var roll = PianoRoll(sequence: sequence, title: (file as NSString).lastPathComponent)
        roll.width = picture.width
        roll.height = picture.height ?? 800
        let map = TempoMap(sequence: sequence.concatenatingPatterns())
        if let start = region.start { roll.start = start.position.seconds(in: map) }
        if let end = region.end { roll.end = end.position.seconds(in: map) }
        guard roll.end > roll.start else { throw CommandFailure("--end must come after --start", .usage) }
        try CommandFailure.describing(.inputOutput) { try roll.draw(to: picture.output, format: picture.format, protecting: [file]) }
    }
}

extension PlaybackPosition {
    /// The position in seconds on `map`.
    func seconds(in map: TempoMap) -> Double {
        if case .seconds(let seconds) = self { return seconds }
        return map.seconds(atTick: tick(in: map))
    }
}
