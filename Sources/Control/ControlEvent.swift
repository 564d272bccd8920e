import Sampler

/// What changed in a sound module, as subscribers of `SoundModuleControl` get it.
public enum ControlEvent: Sendable, Equatable, Encodable {
    /// A channel's preset, volume, pan or mute changed (from a face or from a keyboard).
    case channel(ChannelState)
    case fonts([FontState])
    case gain(Double)
    /// The reverb, every field given.
    case reverb(SamplerSettings.Reverb)
    /// The chorus, every field given (the waveform as the state has it).
    case chorus(SamplerSettings.Chorus)
    case inputs([InputState])
    case song(SongState?)
    case recording(RecordingState?)
    /// Every voice was silenced.
    case panic
    /// A system reset (the channels' new state follows as `.channel` events).
    case reset
    /// A note played through a face (`noteOn`/`noteOff`; velocity 0: its end), for meters. Not state. The channel is
    /// 0...15 (1...16 in JSON).
    case note(channel: Int, key: Int, velocity: Int)

    /// The event's name in JSON (`{"type": "channel", "channel": {…}}`).
    public var type: String {
        switch self {
        case .channel: return "channel"
        case .fonts: return "fonts"
        case .gain: return "gain"
        case .reverb: return "reverb"
        case .chorus: return "chorus"
        case .inputs: return "inputs"
        case .song: return "song"
        case .recording: return "recording"
        case .panic: return "panic"
        case .reset: return "reset"
        case .note: return "note"
        }
    }

    private enum CodingKeys: String, CodingKey { case type, channel, fonts, gain, reverb, chorus, inputs, song, recording, note }
    private enum NoteKeys: String, CodingKey { case channel, key, velocity }

    /// `{"type": NAME, NAME: value}` (no value for `panic` and `reset`; a note's is `{"channel", "key", "velocity"}`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        switch self {
        case .channel(let value): try c.encode(value, forKey: .channel)
        case .fonts(let value): try c.encode(value, forKey: .fonts)
        case .gain(let value): try c.encode(value, forKey: .gain)
        case .reverb(let value): try c.encode(value, forKey: .reverb)
        case .chorus(let value): try c.encode(value, forKey: .chorus)
        case .inputs(let value): try c.encode(value, forKey: .inputs)
        case .song(let value): try c.encode(value, forKey: .song)
        case .recording(let value): try c.encode(value, forKey: .recording)
        case .panic, .reset: break
        case .note(let channel, let key, let velocity):
            var note = c.nestedContainer(keyedBy: NoteKeys.self, forKey: .note)
            try note.encode(channel &+ 1, forKey: .channel)  // 1...16 in JSON
            try note.encode(key, forKey: .key)
            try note.encode(velocity, forKey: .velocity)
        }
    }
}
