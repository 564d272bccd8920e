import CSndFile

/// How a file is encoded beyond its format and sample format: the quality and bitrate mode of the
/// lossy formats (Ogg Vorbis, MP3, Opus) and the tags written into it (title, copyright, software).
///
/// Set it on a writer with `AudioFileWriter.apply(_:)` before the first samples are written.
public struct AudioEncoding: Hashable, Sendable {
    /// How a lossy encoder spends bits.
    public enum BitrateMode: String, Hashable, Sendable, CaseIterable {
        /// Variable bitrate: constant quality (the encoders' default).
        case variable
        /// Constant bitrate (MP3, Opus).
        case constant
        /// Average bitrate (MP3, Opus).
        case average
    }

    /// Lossy quality from 0 (smallest) to 10 (best), as oggenc counts it; nil: the encoder's default.
    public var quality: Double?
    /// MP3 and Opus only; nil: the encoder's default (variable).
    public var bitrateMode: BitrateMode?
    /// Tags: written where the format has them (WAV and AIFF: INFO/text chunks; FLAC, Ogg, Opus:
    /// Vorbis comments; MP3: ID3v2).
    public var title: String?
    public var copyright: String?
    public var artist: String?
    public var comment: String?
    /// The program that made the file.
    public var software: String? = "seqplay"

    public init(quality: Double? = nil, bitrateMode: BitrateMode? = nil, title: String? = nil,
                copyright: String? = nil, software: String? = "seqplay") {
        self.quality = quality; self.bitrateMode = bitrateMode; self.title = title; self.copyright = copyright
        self.software = software
    }
}

extension AudioFileFormat {
    /// True for the formats that encode with loss and have a quality to choose: Ogg Vorbis, MP3, Opus.
    public var isLossy: Bool {
        self == .ogg || self == .mp3 || self == .opus
    }

    /// The sample rates a format can be written at, nil when any rate libsndfile takes will do.
    /// Opus runs at 8, 12, 16, 24 or 48 kHz; MP3 at the MPEG-1/2/2.5 rates.
    public var supportedSampleRates: [Int]? {
        switch self {
        case .opus: return [8_000, 12_000, 16_000, 24_000, 48_000]
        case .mp3: return [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000]
        default: return nil
        }
    }

    /// The rate to write this format at when `requested` was asked for: `requested` when the format
    /// takes it, else 48 kHz when it takes that (Opus), else its highest rate. A render meant for a
    /// file of this format renders at this rate (resampling after the fact would cost a pass).
    public func sampleRate(forRequested requested: Int) -> Int {
        guard let rates = supportedSampleRates, !rates.contains(requested) else { return requested }
        return rates.contains(48_000) ? 48_000 : rates.last!
    }

    /// The libsndfile codec of a lossy format.
    var lossySubtype: Int32 {
        switch self {
        case .mp3: return Int32(SF_FORMAT_MPEG_LAYER_III)
        case .opus: return Int32(SF_FORMAT_OPUS)
        default: return Int32(SF_FORMAT_VORBIS)
        }
    }
}

extension AudioFileWriter {
    /// Sets the quality, bitrate mode and tags of `encoding` on the file. Call it before writing
    /// samples; a quality or bitrate mode the format has not (WAV, a bitrate mode for Vorbis) is refused.
    public func apply(_ encoding: AudioEncoding) throws(AudioFileError) {
        guard let file, framesWritten == 0 else { throw AudioFileError(path: path, problem: .closed) }
        func refuse(_ what: String) -> AudioFileError {
            AudioFileError(path: path, problem: .unsupportedSettings("\(format.rawValue) has no \(what)"))
        }
        if let mode = encoding.bitrateMode {
            guard format == .mp3 || format == .opus else { throw refuse("bitrate mode") }
            var value: Int32 = switch mode {
            case .variable: Int32(SF_BITRATE_MODE_VARIABLE)
            case .constant: Int32(SF_BITRATE_MODE_CONSTANT)
            case .average: Int32(SF_BITRATE_MODE_AVERAGE)
            }
            guard sf_command(file, Int32(SFC_SET_BITRATE_MODE), &value, Int32(MemoryLayout<Int32>.size)) == SF_TRUE else {
                throw refuse("\(mode.rawValue) bitrate mode")
            }
        }
        if let quality = encoding.quality {
            guard format.isLossy else { throw refuse("quality to choose (it is not lossy)") }
            // libsndfile: VBR quality 0...1 (1 best) for Vorbis, MP3 and Opus alike; with a constant or
            // average bitrate the same setting picks the bitrate.
            var value = min(10, max(0, quality)) / 10
            guard sf_command(file, Int32(SFC_SET_VBR_ENCODING_QUALITY), &value, Int32(MemoryLayout<Double>.size)) == SF_TRUE else {
                throw refuse("quality setting")
            }
        }
        var comment = encoding.comment
        if format == .mp3, comment == nil {
            // ID3 as libsndfile writes it has no copyright or software frame: they go in the comment.
            comment = [encoding.copyright, encoding.software.map { "made with \($0)" }].compactMap { $0 }.joined(separator: "; ")
        }
        for (kind, text) in [(SF_STR_TITLE, encoding.title), (SF_STR_COPYRIGHT, encoding.copyright), (SF_STR_ARTIST, encoding.artist),
                             (SF_STR_COMMENT, comment), (SF_STR_SOFTWARE, encoding.software)] {
            guard let text, !text.isEmpty else { continue }
            // Formats without a place for a tag refuse it; the audio is unaffected, so that is not an error.
            _ = sf_set_string(file, Int32(kind), text)
        }
    }
}
