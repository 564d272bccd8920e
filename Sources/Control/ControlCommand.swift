import Sampler

/// What a face asks a sound module to do (`SoundModuleControl.perform`). Channels are 0...15 here, as
/// everywhere in code (`MIDIChannel`); the faces that show them 1...16 (OSC, HTTP) convert at their edge.
public enum ControlCommand: Sendable, Equatable {
    /// A program change on `channel`; with `bank`, the preset `bank`/`program` of the highest-priority
    /// font that has it (an error if none has), without, a MIDI program change in the channel's bank.
    case program(channel: Int, program: Int, bank: Int? = nil)
    /// The preset `bank`/`program` of the font with id `font` (FluidSynth's `select`).
    case select(channel: Int, font: Int, bank: Int, program: Int)
    /// CC 7, 0...127.
    case volume(channel: Int, value: Int)
    /// CC 10, 0...127 (64 centre).
    case pan(channel: Int, value: Int)
    /// Silences the channel's notes (or lets them sound again).
    case mute(channel: Int, muted: Bool)
    /// Any controller, 0...127 each.
    case controlChange(channel: Int, controller: Int, value: Int)
    case noteOn(channel: Int, key: Int, velocity: Int)
    case noteOff(channel: Int, key: Int)
    /// 0...16383 (8192 centre).
    case pitchBend(channel: Int, value: Int)
    /// FluidSynth's master gain, 0...10.
    case gain(Double)
    /// Sets each field of the reverb given (not nil), the others kept; each checked against
    /// `SamplerSettings.ranges`.
    case reverb(SamplerSettings.Reverb)
    /// Sets each field of the chorus given (not nil), the others kept; each checked against
    /// `SamplerSettings.ranges`. The waveform cannot be changed (`ControlError.unsupported`).
    case chorus(SamplerSettings.Chorus)
    /// Loads a SoundFont (on top of the others).
    case loadFont(path: String)
    /// Unloads the font with this id.
    case unloadFont(id: Int)
    /// Loads every font again from its file (SIGHUP), keeping the channels' programs where it can.
    case reloadFonts
    /// Silences every voice on every channel at once.
    case panic
    /// A MIDI system reset: programs, controllers and notes to their defaults (mutes stay).
    case reset
    /// Plays a song (where the host plays songs).
    case playSong(path: String)
    case stopSong
    /// Starts recording what is played to a file (where the host records on request).
    case startRecording(path: String)
    case stopRecording
}

/// Why a `ControlCommand` was refused; its description is the one line a face answers with.
public enum ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A channel outside 0...15 (its description names it 1-based, as a person reads it).
    case noSuchChannel(Int)
    /// A value outside its range (name, the value as given, the range).
    case outOfRange(name: String, value: String, range: String)
    /// No loaded font has that preset.
    case noSuchPreset(bank: Int, program: Int)
    /// No loaded font has that id.
    case noSuchFont(Int)
    /// A font that could not be loaded, and why.
    case fontFailed(path: String, reason: String)
    /// The host cannot do that (no song player, no recorder, …).
    case unsupported(String)
    /// Song or recording handlers' own failures.
    case failed(String)

    public var description: String {
        switch self {
        case .noSuchChannel(let channel): return "no channel \(channel &+ 1) (channels are 1-16)"
        case .outOfRange(let name, let value, let range): return "\(name) \(value) is out of range (\(range))"
        case .noSuchPreset(let bank, let program): return "no loaded SoundFont has bank \(bank) program \(program)"
        case .noSuchFont(let id): return "no SoundFont with id \(id) is loaded"
        case .fontFailed(let path, let reason): return "cannot load \(path): \(reason)"
        case .unsupported(let what): return "\(what) is not available here"
        case .failed(let reason): return reason
        }
    }
}
