import ArgumentParser
import Pictures
import SeqplaySupport
import MIDIFile

/// `--waveform PICTURE` of the render command: after `-o FILE` is written, a picture of its waveform
/// and level with the song's bar lines (as `seqplay waveform FILE -o PICTURE --song SONG`).
struct WaveformOption: ParsableArguments {
    @Option(help: ArgumentHelp("With -o: also draw the rendered audio's waveform, with the song's bar lines, to this picture (.png, .svg, .pdf).",
                               valueName: "picture"))
    var waveform: String?

    func validate() throws {
        if let waveform, Canvas.Format(path: waveform) == nil {
            throw ValidationError("--waveform \(waveform): the picture must end in .png, .svg or .pdf")
        }
    }

    /// Checks that there is a file to picture: `output` given and not standard output.
    func validate(output: String?) throws {
        guard waveform != nil else { return }
        guard let output, output != "-" else { throw ValidationError("--waveform needs -o FILE (not standard output)") }
    }

    /// Exits (status 5) when the picture could not be written (a directory, read-only, one of
    /// `inputs`…), before anything is rendered.
    func refuseUnwritable(protecting inputs: [String]) throws(CommandFailure) {
        guard let waveform else { return }
        _ = try CommandFailure.describing(.inputOutput) { try OutputTarget.resolve(waveform, protecting: inputs) }
    }

    /// Draws the picture of the rendered `audio` (the song `sequence`), when asked for; it may not be
    /// one of `inputs` (the audio, the song, the fonts).
    func draw(audio: String, sequence: MusicSequence, protecting inputs: [String]) throws(CommandFailure) {
        guard let waveform else { return }
        try WaveformCommand.draw(audio: audio, to: waveform, barStarts: SongTimeline(sequence: sequence).barStarts, protecting: inputs)
    }
}
