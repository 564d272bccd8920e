import ALSA
import AudioGraph
import ControlHTTP
import MediaLibrary
import MIDIFile
import NetworkMIDI
import Rendering
import Sessions
import SoundFontFile

/// The exit statuses of every `seqplay` command (Docs/exit-codes.md), so scripts can rely on them, and a program
/// built on the library can answer its own failures with the same statuses.
public struct ExitStatus: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Something went wrong that no other status describes.
    public static let generic = ExitStatus(rawValue: 1)
    /// `render --output-dir`: some inputs could not be rendered (each was reported); the others were.
    public static let someInputsFailed = ExitStatus(rawValue: 2)
    /// The MIDI file is not a Standard MIDI File the reader can read (or, with --strict, needs repair).
    public static let badMIDIFile = ExitStatus(rawValue: 3)
    /// The SoundFont cannot be loaded.
    public static let badSoundFont = ExitStatus(rawValue: 4)
    /// A file cannot be read or written.
    public static let inputOutput = ExitStatus(rawValue: 5)
    /// The machine has no ALSA sequencer (/dev/snd/seq), so MIDI ports cannot be used; file rendering still works.
    public static let sequencerNotAvailable = ExitStatus(rawValue: 6)
    /// `--network-connect`: the peer did not connect and complete a clock sync in time.
    public static let networkPeerNotConnected = ExitStatus(rawValue: 7)
    /// The network session cannot be opened (address in use, not a local address, cannot resolve).
    public static let networkUnavailable = ExitStatus(rawValue: 8)
    /// Bad usage: a flag, a value or a query that cannot be taken (EX_USAGE).
    public static let usage = ExitStatus(rawValue: 64)
    /// Ended by Ctrl-C (SIGINT) or SIGTERM/SIGHUP: 128 + SIGINT, as shells report it.
    public static let interrupted = ExitStatus(rawValue: 130)
}

/// A library error as `seqplay` reports it: the one line to print after `seqplay: ` (nil when there is nothing
/// to add, e.g. an interruption) and the exit status. The one table from the library's errors to exit statuses.
public struct FailureReport: Error, Sendable {
    public var message: String?
    public var status: ExitStatus

    public init(_ message: String?, _ status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// How `error` is reported. `file` names the song in messages about its content; `liveCommand` is how the user
    /// repeats a live command with -o (the advice when there is no sound card; default `seqplay live`).
    public init(_ error: any Error, file: String? = nil, liveCommand: String? = nil) {
        let about = file.map { "\($0): " } ?? ""
        switch error {
        case let report as FailureReport:
            self = report
        case let issue as MIDIFileIssue:
            if case .unreadable = issue.reason { self.init("\(issue)", .inputOutput) } else { self.init("\(issue)", .badMIDIFile) }
        case let error as RenderError:
            self.init(error, file: about)
        case let error as SongSessionError:
            switch error {
            case .song(let error): self.init(RenderError.song(error), file: about)
            case .render(let error): self.init(error, file: about)
            case .sequencer(let error): self.init(error)
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
            self.init(error, liveCommand: liveCommand ?? "seqplay live")
        case let error as MediaLibraryError:
            if case .query = error { self.init("\(error)", .usage) } else { self.init("\(error)", .inputOutput) }
        default:
            self.init("\(error)", .generic)
        }
    }

    private init(_ error: LiveSamplerError, liveCommand: String) {
        switch error {
        case .output(let outputError) where outputError.noSoundCardReason != nil:
            let reason = outputError.noSoundCardReason!
            self.init("no sound card to play to (\(reason)); record what is played to a file instead: \(liveCommand) -o live.wav",
                      .inputOutput)
        case .sequencer(let error): self.init(error)
        case .soundFont: self.init("\(error)", .badSoundFont)
        case .output, .deviceFailed, .recording, .input: self.init("\(error)", .inputOutput)
        case .network: self.init("\(error)", .networkUnavailable)
        case .noInput: self.init("\(error)", .usage)
        case .synthesizer: self.init("\(error)", .generic)
        }
    }

    private init(_ error: RenderError, file about: String) {
        switch error {
        case .soundFont(let fontError):
            if case .unreadable = fontError.problem { self.init(error.description, .inputOutput) } else { self.init(error.description, .badSoundFont) }
        case .song(.tooLong): self.init("\(about)\(error)", .badMIDIFile)
        case .song, .unsupportedSampleRate, .invalidTail, .channelMap:
            self.init(error.description, .usage)
        case .audioFile(let fileError):
            switch fileError.problem {
            case .unknownExtension, .unsupportedSampleFormat, .streamMustBeWAV, .unsupportedSettings:
                self.init(error.description, .usage)
            default:
                self.init(error.description, .inputOutput)
            }
        case .synthesizer, .engine, .varispeed: self.init(error.description, .generic)
        }
    }
}
