import Foundation
import ArgumentParser
import Drawing
import Pictures

/// `seqplay waveform song.wav -o song.png`: a picture of rendered audio's waveform and level.
struct WaveformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform",
        abstract: "Draw an audio file's waveform and level over time to a PNG, SVG or PDF file.",
        discussion: """
            With --song, the song's bar lines are drawn (the audio rendered from it starts at bar 1).
              seqplay waveform song.wav -o song.png --song song.mid
            """
    )

    @Argument(help: "The audio file (WAV, AIFF, FLAC, OGG…).")
    var file: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The picture: .png, .svg or .pdf.", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("The MIDI file the audio was rendered from, for bar lines.", valueName: "file"))
    var song: String?

    @Option(help: "Width in pixels (points for SVG and PDF).")
    var width = 1600

    @Option(help: "Height in pixels (points for SVG and PDF).")
    var height = 300

    func validate() throws {
        guard Canvas.Format(path: output) != nil else { throw ValidationError("-o \(output): the picture must end in .png, .svg or .pdf") }
        guard (100...20_000).contains(width), (100...20_000).contains(height) else {
            throw ValidationError("--width and --height must be 100 to 20000")
        }
    }

    func run() throws {
        let bars = song.map { SongTimeline(sequence: CommandLineOutput.readMIDIFile($0).sequence).barStarts } ?? []
        Self.draw(audio: file, to: output, barStarts: bars, width: width, height: height)
    }

    /// Draws the picture of `audio`, or exits: 5 when a file cannot be read or written.
    static func draw(audio: String, to output: String, barStarts: [Double], width: Int = 1600, height: Int = 300) {
        do {
            var picture = try WaveformPicture(audioPath: audio, width: width, title: (audio as NSString).lastPathComponent)
            picture.height = height
            picture.barStarts = barStarts
            try picture.draw(to: output, format: Canvas.Format(path: output) ?? .png)
        } catch {
            CommandLineOutput.fail("\(error)", .inputOutput)
        }
    }
}
