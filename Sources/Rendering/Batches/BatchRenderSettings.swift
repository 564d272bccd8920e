import AudioFiles
import Foundation
import MIDIFile
import SeqplaySupport

/// How a batch is rendered: where the outputs go and in what format, the SoundFonts, how many
/// workers, and whether finished outputs are rendered again.
public struct BatchRenderSettings: Sendable {
    /// The directory the outputs go under, each at its input's relative path.
    public var outputDirectory: String
    public var format: AudioFileFormat = .wav
    /// The stored sample format; nil: the container's default.
    public var sampleFormat: AudioSampleFormat?
    /// The fonts every song plays through, loaded in order (later ones take priority).
    public var soundFontPaths: [String]
    /// Songs rendered at once, each by a worker thread with its own synthesizer.
    public var jobs: Int = AvailableCores.count
    /// Render outputs that already exist again (a rerun otherwise skips them).
    public var overwritesFinishedOutputs = false
    /// Write beside each output the notes as they sound (`NoteLabels`, a `.labels.csv` file).
    public var writesLabels = false
    /// Also write stems beside each mix (`NAME.ch01.wav`, …), nil: none.
    public var stems: StemMode?
    /// Bring each file to a loudness or peak with one gain (its stems get the same); nil: as rendered.
    public var normalization: Normalization?
    /// Measure each output's integrated loudness (EBU R128).
    public var measuresLoudness = false
    /// How the MIDI reader treats files that need repair.
    public var readMode: MIDIFileReader.Mode = .lenient
    /// Each output's encoding settings and tags, from its song (the command line's: the song's title
    /// and copyright, seqplay as the software, `--quality`, `--title`…, as a single render writes
    /// them); nil: the format's defaults and no tags.
    public var encoding: (@Sendable (MusicSequence) -> AudioEncoding)?
    /// What the manifest of an earlier run said (read before `BatchManifest` rewrites it): which
    /// stems of a finished output were silent, and what the new manifest keeps of the outputs it skips.
    public var earlierManifest: EarlierManifest?

    public init(outputDirectory: String, soundFontPaths: [String]) {
        self.outputDirectory = outputDirectory
        self.soundFontPaths = soundFontPaths
    }

    /// Whether outputs store integer samples (which clip at full scale).
    public var storesIntegers: Bool {
        (sampleFormat ?? format.defaultSampleFormat)?.isInteger ?? false
    }

    /// Where `input`'s output goes.
    public func outputPath(for input: BatchInput) -> String {
        input.outputPath(in: outputDirectory, pathExtension: format.rawValue)
    }
}
