import ALSA
import ArgumentParser
import AudioOutput
import NetworkMIDI
import Rendering
import SongSessions
import SoundFontFile

/// The exit statuses of every `seqplay` command, in one table so scripts can rely on them.
///
/// Bad command-line usage exits with ArgumentParser's `ExitCode.validationFailure` (64, EX_USAGE).
extension ExitCode {
    /// Something went wrong that no other code describes.
    static let generic = ExitCode(1)
    /// `render --output-dir`: some inputs could not be rendered (each was reported); the others were.
    static let someInputsFailed = ExitCode(2)
    /// The MIDI file is not a Standard MIDI File the reader can read (or, with --strict, needs repair).
    static let badMIDIFile = ExitCode(3)
    /// The SoundFont cannot be loaded.
    static let badSoundFont = ExitCode(4)
    /// A file cannot be read or written.
    static let inputOutput = ExitCode(5)
    /// The machine has no ALSA sequencer (/dev/snd/seq), so MIDI ports cannot be used; file rendering still works.
    static let sequencerNotAvailable = ExitCode(6)
    /// `--network-connect`: the peer did not connect and complete a clock sync in time.
    static let networkPeerNotConnected = ExitCode(7)
    /// The network session cannot be opened (address in use, not a local address, cannot resolve).
    static let networkUnavailable = ExitCode(8)
    /// Ended by Ctrl-C (SIGINT) or SIGTERM/SIGHUP: 128 + SIGINT, as shells report it.
    static let interrupted = ExitCode(130)
}

extension CommandLineOutput {
    /// Reports a library error and exits with its status: the one table from errors to exit statuses
    /// for the song commands. `file` names the song in messages about its content.
    static func fail(_ error: any Error, file: String? = nil) -> Never {
        let about = file.map { "\($0): " } ?? ""
        switch error {
        case let status as ExitCode:
            Seqplay.exit(withError: status)
        case let error as ValidationError:
            fail(error.message, .validationFailure)
        case let error as RenderError:
            fail(error, file: about)
        case let error as SongSessionError:
            switch error {
            case .song(let error): fail(RenderError.song(error), file: about)
            case .render(let error): fail(error, file: about)
            case .sequencer(let error): Seqplay.exit(withError: SequencerCommandSupport.exit(for: error))
            case .audio, .deviceFailed: fail(error.description, .inputOutput)
            }
        case let error as SequencerError:
            Seqplay.exit(withError: SequencerCommandSupport.exit(for: error))
        case let error as AudioOutputError:
            fail("\(error)", .inputOutput)
        case let error as NetworkSongError:
            switch error {
            case .unavailable: fail(error.description, .networkUnavailable)
            case .noAnswer: fail(error.description, .networkPeerNotConnected)
            case .cancelled: Seqplay.exit(withError: ExitCode.interrupted)
            }
        case let error as NetworkMIDIError:
            fail("\(error)", .networkUnavailable)
        case let error as SoundFontLocator.NotFound:
            fail("\(error); use --sf2 FILE", .badSoundFont)
        default:
            fail("\(error)", .generic)
        }
    }

    private static func fail(_ error: RenderError, file about: String) -> Never {
        switch error {
        case .soundFont(let fontError):
            if case .unreadable = fontError.problem { fail(error.description, .inputOutput) }
            fail(error.description, .badSoundFont)
        case .song(.tooLong): fail("\(about)\(error)", .badMIDIFile)
        case .song, .unsupportedSampleRate, .invalidTail, .channelMap:
            fail(error.description, .validationFailure)
        case .audioFile(let fileError):
            switch fileError.problem {
            case .unknownExtension, .unsupportedSampleFormat, .streamMustBeWAV, .unsupportedSettings:
                fail(error.description, .validationFailure)
            default:
                fail(error.description, .inputOutput)
            }
        case .synthesizer, .engine, .varispeed: fail(error.description, .generic)
        }
    }
}
