import ALSA
import AudioFiles
import AudioGraph
import LV2
import Sampler
import SoundFontFile
import LiveInput
import NetworkMIDI

/// Everything that shapes a `LiveSamplerSession`: fonts, where it plays, and its producers (ALSA
/// input ports, a network MIDI session, or both).
public struct LiveSamplerConfiguration: Sendable {
    /// Where the session's audio goes.
    public enum Output: Sendable {
        /// An ALSA playback device.
        case soundCard(device: String, settings: PCMPlaybackSettings)
        /// A clock of the system's, recording what is played to an audio file (format by extension).
        case recording(path: String, sampleRate: Int)
        /// An output already opened with any driver (e.g. `JACKOutput`), at its own rate.
        case opened(RealtimeOutput)
    }

    /// SoundFonts each sampler loads, in order (later ones win).
    public var soundFonts: [String]
    /// How every sampler of the session sounds; the sample rate is the output's.
    public var sampler = SamplerSettings()
    public var output: Output
    /// The sequencer client of the input ports (as `aconnect -l` lists it).
    public var clientName = "seqplay live"
    /// One ALSA input port per name, each playing a sampler of its own (16 channels per port).
    public var portNames: [String] = []
    /// Timestamped delivery of the ports' events (`portLookAheadSeconds` after their kernel time);
    /// otherwise at the next block.
    public var timestampedPorts = false
    /// The look-ahead of timestamped ports; nil: one period plus 2 ms.
    public var portLookAheadSeconds: Double?
    /// Sources the session connects to the first port, at start and when they appear (hot-plug).
    public var connect: LiveSourceFilter?
    /// A network MIDI session whose peers play a sampler of its own.
    public var network: NetworkMIDISession.Configuration?
    /// Whether each network peer is also an ALSA sequencer port (where there is a sequencer).
    public var networkPeersAsALSAPorts = true
    /// More producers (a JACK MIDI input port…), each playing a sampler of its own after the ports'
    /// and the network's.
    public var inputs: [any LiveSamplerInput] = []
    /// LV2 instruments playing some channels of every source (`--instrument`), each message on its own frame;
    /// those channels do not reach the SoundFont samplers.
    public var instruments: [LV2InstrumentAssignment] = []

    public init(soundFonts: [String], output: Output) {
        self.soundFonts = soundFonts
        self.output = output
    }
}

/// Why a `LiveSamplerSession` cannot start or play on.
public enum LiveSamplerError: Error, CustomStringConvertible {
    case soundFont(SoundFontError)
    case synthesizer(SynthesizerError)
    /// The sound card cannot be opened or failed.
    case output(AudioOutputError)
    case deviceFailed(AudioDriverError)
    case sequencer(SequencerError)
    case network(NetworkMIDIError)
    /// The recording cannot be written.
    case recording(path: String, underlying: any Error)
    /// An input of `inputs` could not be attached.
    case input(name: String, underlying: any Error)
    /// Nothing to play: no ports, no network session and no other input.
    case noInput

    public var description: String {
        switch self {
        case .soundFont(let cause as any Error), .synthesizer(let cause as any Error), .output(let cause as any Error),
             .sequencer(let cause as any Error), .network(let cause as any Error):
            return "\(cause)"
        case .deviceFailed(let error): return "the sound card failed: \(error)"
        case .recording(let path, let error): return "\(path): \(error)"
        case .input(let name, let error): return "\(name): \(error)"
        case .noInput: return "a live sampler needs input ports, a network session or another input"
        }
    }
}
