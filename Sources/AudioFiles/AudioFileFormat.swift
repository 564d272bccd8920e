import CSndFile

/// The container an audio file is written in.
public enum AudioFileFormat: String, Sendable, CaseIterable {
    case wav, aiff, flac, ogg, mp3, opus

    /// The format a file name's extension names (`.wav`, `.aif`/`.aiff`, `.flac`, `.ogg`/`.oga`, `.mp3`, `.opus`),
    /// case-insensitively; `nil` for any other extension.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        case "mp3": self = .mp3
        case "opus": self = .opus
        default: return nil
        }
    }

    /// The sample formats the container can hold. Ogg (Vorbis), MP3 and Opus files are lossy
    /// encodings, which have no sample format to choose.
    public var supportedSampleFormats: [AudioSampleFormat] {
        switch self {
        case .wav, .aiff: return AudioSampleFormat.allCases
        case .flac: return [.int16, .int24]
        case .ogg, .mp3, .opus: return []
        }
    }

    /// The sample format used when none is asked for (`nil` for the lossy formats).
    public var defaultSampleFormat: AudioSampleFormat? {
        isLossy ? nil : .int16
    }

    var sndfileMajor: Int32 {
        switch self {
        case .wav: return Int32(SF_FORMAT_WAV)
        case .aiff: return Int32(SF_FORMAT_AIFF)
        case .flac: return Int32(SF_FORMAT_FLAC)
        case .ogg, .opus: return Int32(SF_FORMAT_OGG)
        case .mp3: return Int32(SF_FORMAT_MPEG)
        }
    }

    init?(sndfileFormat: Int32) {
        switch Int(sndfileFormat) & SF_FORMAT_TYPEMASK {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64: self = .wav  // WAV and its extensible and 64-bit forms
        case SF_FORMAT_AIFF: self = .aiff
        case SF_FORMAT_FLAC: self = .flac
        case SF_FORMAT_OGG: self = Int(sndfileFormat) & SF_FORMAT_SUBMASK == SF_FORMAT_OPUS ? .opus : .ogg
        case SF_FORMAT_MPEG: self = .mp3
        default: return nil
        }
    }
}

/// How each sample is stored in the file.
public enum AudioSampleFormat: String, Sendable, CaseIterable {
    case int16, int24, int32, float32

    /// Whether samples are stored as integers, which clip at full scale (float samples go past it).
    public var isInteger: Bool { self != .float32 }

    /// Bits per sample.
    public var bitDepth: Int {
        switch self {
        case .int16: return 16
        case .int24: return 24
        case .int32, .float32: return 32
        }
    }

    var sndfileSubtype: Int32 {
        switch self {
        case .int16: return Int32(SF_FORMAT_PCM_16)
        case .int24: return Int32(SF_FORMAT_PCM_24)
        case .int32: return Int32(SF_FORMAT_PCM_32)
        case .float32: return Int32(SF_FORMAT_FLOAT)
        }
    }
}
