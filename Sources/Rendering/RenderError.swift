import AudioFiles
import AudioGraph
import Effects
import Sampler
import Player
import SoundFontFile

/// Why a song could not be rendered, with the file concerned.
public enum RenderError: Error, CustomStringConvertible {
    /// A SoundFont could not be loaded.
    case soundFont(SoundFontError)
    /// The synthesizer could not be created (FluidSynth's reason).
    case synthesizer(String)
    /// The song options do not fit the sequence (loop, start/end, rate, sample rate, a track or
    /// channel to mute or solo that the sequence does not have).
    case song(SongOptionsError)
    /// A sample rate FluidSynth cannot render at.
    case unsupportedSampleRate(Int)
    /// A tail length that is negative, not a number or over `SongOptions.maximumDuration`.
    case invalidTail(Double)
    /// The channel map does not fit: a route other than `main`, or channels the output lacks.
    case channelMap(ChannelMapError)
    /// The varispeed of the effect chain could not be set up.
    case varispeed(VarispeedError)
    /// The audio graph refused to start (its reason).
    case engine(String)
    /// The output file could not be written.
    case audioFile(AudioFileError)

    public var description: String {
        switch self {
        case .soundFont(let error): return error.description
        case .synthesizer(let reason): return "cannot start the synthesizer: \(reason)"
        case .song(let error): return error.description
        case .unsupportedSampleRate(let rate):
            return "sample rate \(rate) Hz is not supported: use \(SongRenderer.supportedSampleRates.lowerBound)...\(SongRenderer.supportedSampleRates.upperBound) Hz"
        case .invalidTail(let seconds):
            return "tail of \(seconds) s: needs a length of 0 to \(Int(SongOptions.maximumDuration)) seconds (24 hours)"
        case .channelMap(let error): return error.description
        case .varispeed(let error): return "varispeed: \(error)"
        case .engine(let reason): return "cannot start the audio graph: \(reason)"
        case .audioFile(let error): return error.description
        }
    }
}
