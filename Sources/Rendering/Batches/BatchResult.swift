import Foundation

/// What became of one input of a batch.
public struct BatchResult: Sendable {
    /// What happened.
    public enum Status: Sendable {
        /// Rendered now.
        case rendered(RenderedAudio)
        /// The output was already there (a finished output from an earlier run).
        case skipped
        /// Not rendered: the reason, naming what is wrong (the MIDI file, a flag that does not fit it,
        /// the output that cannot be written).
        case failed(String)
    }

    public var input: BatchInput
    public var outputPath: String
    public var status: Status
    /// Problems the MIDI reader repaired (lenient mode).
    public var repairs: Int = 0

    public init(input: BatchInput, outputPath: String, status: Status, repairs: Int = 0) {
        self.input = input
        self.outputPath = outputPath
        self.status = status
        self.repairs = repairs
    }

    public var hasFailed: Bool {
        if case .failed = status { return true }
        return false
    }
}

/// Facts about a rendered output.
public struct RenderedAudio: Sendable {
    public var frames: Int64
    public var sampleRate: Int
    /// The largest absolute sample value written (1 = full scale).
    public var peak: Float
    /// Wall-clock seconds the render took.
    public var renderSeconds: Double
    /// Integrated loudness (EBU R128) in LUFS, when measured and not silent.
    public var loudness: Double?
    /// Whether samples went past full scale in an integer output (and were clipped there).
    public var clips: Bool
    /// The channels that sounded and their instruments.
    public var parts: [RenderedPart]
    /// The stems (with `--stems`), written or silent.
    public var stems: [StemOutput]
    /// The normalization gain applied to it (and its stems).
    public var gain: NormalizationGain

    public var durationSeconds: Double { Double(frames) / Double(sampleRate) }

    /// The line that says an output at `path` whose samples went past full scale (`peak` > 1) was clipped there.
    public static func clippingNote(_ path: String, peak: Float) -> String {
        "\(path): clipped (peak \(String(format: "%+.1f", 20 * log10(Double(peak)))) dBFS); lower --gain"
    }

    public init(frames: Int64, sampleRate: Int, peak: Float, renderSeconds: Double, loudness: Double? = nil,
                clips: Bool = false, parts: [RenderedPart] = [], stems: [StemOutput] = [], gain: NormalizationGain = .none) {
        self.frames = frames
        self.sampleRate = sampleRate
        self.peak = peak
        self.renderSeconds = renderSeconds
        self.loudness = loudness
        self.clips = clips
        self.parts = parts
        self.stems = stems
        self.gain = gain
    }
}
