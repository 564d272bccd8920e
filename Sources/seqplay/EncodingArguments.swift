import ArgumentParser
import AudioFiles
import Foundation
import MIDIFile

extension AudioEncoding.BitrateMode: ExpressibleByArgument {}

/// How `-o` encodes and tags the file, and `--dry-run`.
struct EncodingArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Lossy quality from 0 (smallest) to 10 (best), for ogg, mp3 and opus (default: the encoder's).", valueName: "0-10"))
    var quality: Double?

    @Option(help: ArgumentHelp("mp3 and opus: variable (default), constant or average bitrate (--quality picks the bitrate).", valueName: "variable|constant|average"))
    var bitrateMode: AudioEncoding.BitrateMode?

    @Option(help: ArgumentHelp("Title tag (default: the song's title, its first track's name); copyright comes from the song, software is seqplay.", valueName: "text"))
    var title: String?

    @Flag(help: "With -o: print the output's duration, format and estimated size; with --output-dir: each input's output and whether it is rendered or skipped as finished. Writes nothing.")
    var dryRun = false

    func validate() throws {
        try FlagRange.check(quality, "--quality", atLeast: 0, atMost: 10)
    }

    /// The encoding and tags for a render of `sequence`.
    func encoding(for sequence: MusicSequence) -> AudioEncoding {
        var encoding = AudioEncoding(song: sequence)
        encoding.quality = quality
        encoding.bitrateMode = bitrateMode
        if let title { encoding.title = title }
        return encoding
    }

    /// The rate to render at for a `format` file when `requested` was asked for
    /// (`AudioFileFormat.sampleRate(forRequested:)`), said once when it is not the one asked for.
    func sampleRate(_ requested: Int, for format: AudioFileFormat) -> Int {
        let rate = format.sampleRate(forRequested: requested)
        guard rate != requested, let rates = format.supportedSampleRates else { return requested }
        CommandLineOutput.note("\(format.rawValue) files take \(rates.map(String.init).joined(separator: ", ")) Hz: rendering at \(rate) Hz")
        return rate
    }
}
