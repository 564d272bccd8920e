import Foundation
import ArgumentParser
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

    @OptionGroup var picture: PictureOutput

    @Option(help: ArgumentHelp("The MIDI file the audio was rendered from, for bar lines.", valueName: "file"))
    var song: String?

    func run() throws {
        let bars = try song.map { (path) throws(CommandFailure) in SongTimeline(sequence: try CommandLineOutput.readMIDIFile(path).sequence).barStarts } ?? []
        try Self.draw(audio: file, to: picture.output, barStarts: bars, width: picture.width, height: picture.height ?? 300,
                  protecting: [file] + (song.map { [$0] } ?? []))
    }

    /// Draws the picture of `audio`, or throws: 5 when a file cannot be read or written. The picture
    /// may not be one of `inputs` (the audio, the song).
    static func draw(audio: String, to output: String, barStarts: [Double], width: Int = 1600, height: Int = 300,
                     protecting inputs: [String]) throws(CommandFailure) {
        try CommandFailure.describing(.inputOutput) {
            var picture = try WaveformPicture(audioPath: audio, width: width, title: (audio as NSString).lastPathComponent)
            picture.height = height
            picture.barStarts = barStarts
            try picture.draw(to: output, format: Canvas.Format(path: output) ?? .png, protecting: inputs)
        }
    }
}
