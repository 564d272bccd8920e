import ALSA
import ArgumentParser
import AudioGraph
import ControlHTTP
import MediaLibrary
import NetworkMIDI
import Rendering
import Sessions
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

extension CommandFailure {
    /// The one table from library errors to the line printed and the exit status, for every command.
    /// `file` names the song in messages about its content; `command` is how the user repeats a live
    /// command with -o (the advice when there is no sound card).
    init(mapping error: any Error, file: String? = nil, command: String? = nil) {
        let about = file.map { "\($0): " } ?? ""
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let status as ExitCode:
            self.init(nil, status)
        case let error as ValidationError:
            self.init(error.message, .validationFailure)
        case let error as RenderError:
            self.init(mapping: error, file: about)
        case let error as SongSessionError:
            switch error {
            case .song(let error): self.init(mapping: RenderError.song(error), file: about)
            case .render(let error): self.init(mapping: error, file: about)
            case .sequencer(let error): self.init(mapping: error)
            case .audio, .deviceFailed: self.init(error.description, .inputOutput)
            }
        case let error as SequencerError:
            if case .notAvailable = error { self.init("\(error)", .sequencerNotAvailable) } else { self.init("\(error)", .generic) }
        case let error as AudioOutputError:
            self.init("\(error)", .inputOutput)
        case let error as NetworkSongError:
            switch error {
            case .unavailable: self.init(error.description, .networkUnavailable)
            case .noAnswer: self.init(error.description, .networkPeerNotConnected)
            case .cancelled: self.init(nil, .interrupted)
            }
        case let error as NetworkMIDIError:
            self.init("\(error)", .networkUnavailable)
        case let error as ControlHTTPServer.StartError:
            self.init(error.description, .networkUnavailable)
        case let error as ControlHTTPFace.Failure:
            if case .token = error { self.init(error.description, .inputOutput) } else { self.init(error.description, .networkUnavailable) }
        case let error as SoundFontLocator.NotFound:
            self.init("\(error); use --sf2 FILE", .badSoundFont)
        case let error as LiveSamplerError:
            self.init(mapping: error, command: command ?? "seqplay live")
        case let error as MediaLibraryError:
            if case .query = error { self.init("\(error)", .validationFailure) } else { self.init("\(error)", .inputOutput) }
        default:
            self.init("\(error)", .generic)
        }
    }

    private init(mapping error: LiveSamplerError, command: String) {
        switch error {
        case .output(let outputError) where outputError.noSoundCardReason != nil:
            let reason = outputError.noSoundCardReason!
            self.init("no sound card to play to (\(reason)); record what is played to a file instead: \(command) -o live.wav",
                      .inputOutput)
        case .sequencer(let error): self.init(mapping: error)
        case .soundFont: self.init("\(error)", .badSoundFont)
        case .output, .deviceFailed, .recording, .input: self.init("\(error)", .inputOutput)
        case .network: self.init("\(error)", .networkUnavailable)
        case .noInput: self.init("\(error)", .validationFailure)
        case .synthesizer: self.init("\(error)", .generic)
        }
    }

    private init(mapping error: RenderError, file about: String) {
        switch error {
        case .soundFont(let fontError):
            if case .unreadable = fontError.problem { self.init(error.description, .inputOutput) } else { self.init(error.description, .badSoundFont) }
        case .song(.tooLong): self.init("\(about)\(error)", .badMIDIFile)
        case .song, .unsupportedSampleRate, .invalidTail, .channelMap:
            self.init(error.description, .validationFailure)
        case .audioFile(let fileError):
            switch fileError.problem {
            case .unknownExtension, .unsupportedSampleFormat, .streamMustBeWAV, .unsupportedSettings:
                self.init(error.description, .validationFailure)
            default:
                self.init(error.description, .inputOutput)
            }
        case .synthesizer, .engine, .varispeed: self.init(error.description, .generic)
        }
    }
}
