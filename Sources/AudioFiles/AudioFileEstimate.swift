/// How large a file of a given length will be, before writing it (like AVAssetExportSession's
/// estimated output size): exact but for a few header bytes for WAV and AIFF, a typical figure for
/// FLAC and the lossy formats, whose size depends on the audio.
public struct AudioFileEstimate: Hashable, Sendable {
    public var bytes: Int64
    /// True when `bytes` is within a few header bytes (uncompressed PCM); false for a typical figure.
    public var isExact: Bool

    /// The estimate for `frames` frames of `channelCount` channels at `sampleRate` in `format`
    /// (`sampleFormat` nil: the format's default) encoded with `quality` (0...10, nil: the default).
    public init(format: AudioFileFormat, sampleFormat: AudioSampleFormat?, sampleRate: Int, channelCount: Int,
                frames: Int64, quality: Double? = nil) {
        let seconds = Double(frames) / Double(max(1, sampleRate))
        let pcmBytes = frames * Int64(channelCount) * Int64((sampleFormat ?? format.defaultSampleFormat ?? .int16).bitDepth / 8)
        switch format {
        case .wav:
            // RIFF, fmt and data chunk headers (float adds a fact and a PEAK chunk).
            bytes = pcmBytes + (sampleFormat == .float32 ? 80 + 8 * Int64(channelCount) : 44)
            isExact = true
        case .aiff:
            bytes = pcmBytes + 54
            isExact = true
        case .flac:
            bytes = pcmBytes * 55 / 100  // music typically compresses to about half
            isExact = false
        case .ogg, .mp3, .opus:
            bytes = Int64(seconds * Self.kilobitsPerSecond(format, quality: quality ?? Self.defaultQuality(format)) * 1000 / 8)
            isExact = false
        }
    }

    /// The quality (0...10) libsndfile's encoders use when none is set.
    static func defaultQuality(_ format: AudioFileFormat) -> Double {
        switch format {
        case .mp3: return 5
        case .opus: return 5
        default: return 4
        }
    }

    /// The typical stereo bitrate at `quality` (0...10): Vorbis q0...q10 ≈ 64...500 kbit/s, MP3 VBR
    /// V9...V0 ≈ 65...245, Opus ≈ 24...256 (libsndfile scales Opus's bitrate linearly).
    static func kilobitsPerSecond(_ format: AudioFileFormat, quality: Double) -> Double {
        let table: [Double]
        switch format {
        case .ogg: table = [64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 500]
        case .mp3: table = [65, 85, 100, 115, 130, 165, 175, 190, 225, 245, 245]
        default: table = (0...10).map { 24 + Double($0) * 23.2 }
        }
        let q = min(10, max(0, quality))
        let low = Int(q.rounded(.down)), high = min(10, low + 1)
        return table[low] + (table[high] - table[low]) * (q - Double(low))
    }
}
