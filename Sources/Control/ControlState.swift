import Sampler
import Foundation

/// A snapshot of a sound module's state (`SoundModuleControl.state`): what every face shows and the
/// state file keeps. Its JSON field names are stable: `channels` (16, numbered 1-16), `fonts`,
/// `gain`, `reverb`, `chorus`, `inputs`, `song`, `recording` (the last two `null` when there is none).
public struct ControlState: Codable, Equatable, Sendable {
    /// The 16 MIDI channels, channel 1 first.
    public var channels: [ChannelState]
    /// The SoundFonts loaded, oldest (lowest priority) first.
    public var fonts: [FontState]
    /// FluidSynth's master gain (0...10).
    public var gain: Double
    /// The reverb, every field given.
    public var reverb: SamplerSettings.Reverb
    /// The chorus, every field given (the waveform nil unless the sampler was made with one; the
    /// JSON leaves it out).
    public var chorus: SamplerSettings.Chorus
    /// The MIDI inputs connected (keyboards, network peers, JACK ports).
    public var inputs: [InputState]
    /// The song playing, if any.
    public var song: SongState?
    /// The recording being written, if any.
    public var recording: RecordingState?

    public init(channels: [ChannelState] = (0...15).map { ChannelState(channel: $0) }, fonts: [FontState] = [], gain: Double = 0.2,
                reverb: SamplerSettings.Reverb = .defaults, chorus: SamplerSettings.Chorus = .defaults, inputs: [InputState] = [],
                song: SongState? = nil, recording: RecordingState? = nil) {
        self.channels = channels; self.fonts = fonts; self.gain = gain; self.reverb = reverb; self.chorus = chorus
        self.inputs = inputs; self.song = song; self.recording = recording
    }

    private enum CodingKeys: String, CodingKey { case channels, fonts, gain, reverb, chorus, inputs, song, recording }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channels = try c.decode([ChannelState].self, forKey: .channels)
        fonts = try c.decodeIfPresent([FontState].self, forKey: .fonts) ?? []
        gain = try c.decode(Double.self, forKey: .gain)
        reverb = try c.decodeIfPresent(SamplerSettings.Reverb.self, forKey: .reverb) ?? .defaults
        chorus = try c.decodeIfPresent(SamplerSettings.Chorus.self, forKey: .chorus) ?? .defaults
        inputs = try c.decodeIfPresent([InputState].self, forKey: .inputs) ?? []
        song = try c.decodeIfPresent(SongState.self, forKey: .song)
        recording = try c.decodeIfPresent(RecordingState.self, forKey: .recording)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEvery([(.channels, channels), (.fonts, fonts), (.gain, gain), (.reverb, reverb), (.chorus, chorus),
                           (.inputs, inputs), (.song, song), (.recording, recording)])
    }

    /// The state as JSON (keys sorted, so equal states give equal bytes).
    public func jsonData(pretty: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// Channel `number` (0...15), if there is one.
    public func channel(_ number: Int) -> ChannelState? {
        channels.first { $0.channel == number }
    }
}

extension KeyedEncodingContainer {
    /// Encodes each value at its key, a nil one as `null`: the state's JSON has every key (`"song":null`),
    /// where the synthesized encoding leaves a nil one out.
    mutating func encodeEvery(_ fields: [(key: Key, value: any Encodable)]) throws {
        for field in fields { try encode(field.value, forKey: field.key) }
    }
}

/// One MIDI channel of a `ControlState`: the preset it plays and its mixer settings, as the user sees
/// them (the state file, the faces' JSON). Not `MIDIChannelStates` (`NetworkMIDI`):
/// that is the MIDI state the recovery journal protects (every note, controller and pitch wheel of 16
/// channels), which a sound module's control does not show.
public struct ChannelState: Codable, Equatable, Sendable {
    /// 0...15, as everywhere in code; the JSON (state file, faces) numbers it 1...16, as a person reads it.
    public var channel: Int
    /// 0...127.
    public var program: Int
    /// The bank (128: percussion).
    public var bank: Int
    /// The preset's name as the font has it (nil: the channel plays no preset).
    public var name: String?
    /// CC 7, 0...127.
    public var volume: Int
    /// CC 10, 0...127 (64 centre).
    public var pan: Int
    /// Whether the channel's notes are silenced.
    public var mute: Bool
    /// The id of the font the preset comes from (as `ControlState.fonts` lists it), nil: none.
    public var font: Int?

    public init(channel: Int, program: Int = 0, bank: Int = 0, name: String? = nil, volume: Int = 100, pan: Int = 64,
                mute: Bool = false, font: Int? = nil) {
        self.channel = channel; self.program = program; self.bank = bank; self.name = name
        self.volume = volume; self.pan = pan; self.mute = mute; self.font = font
    }

    private enum CodingKeys: String, CodingKey { case channel, program, bank, name, volume, pan, mute, font }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channel = try c.decode(Int.self, forKey: .channel) &- 1  // 1...16 in JSON
        program = try c.decodeIfPresent(Int.self, forKey: .program) ?? 0
        bank = try c.decodeIfPresent(Int.self, forKey: .bank) ?? 0
        name = try c.decodeIfPresent(String.self, forKey: .name)
        volume = try c.decodeIfPresent(Int.self, forKey: .volume) ?? 100
        pan = try c.decodeIfPresent(Int.self, forKey: .pan) ?? 64
        mute = try c.decodeIfPresent(Bool.self, forKey: .mute) ?? false
        font = try c.decodeIfPresent(Int.self, forKey: .font)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEvery([(.channel, channel &+ 1), (.program, program), (.bank, bank), (.name, name), (.volume, volume), (.pan, pan),
                           (.mute, mute), (.font, font)])
    }
}

/// A loaded SoundFont of a `ControlState`, with the presets it offers (names as the font has them).
public struct FontState: Codable, Equatable, Sendable {
    /// FluidSynth's id of the font (what the shell's `fonts` lists and `select`/`unload` take).
    public var id: Int
    public var path: String
    /// The font's own name (INAM), or the file name.
    public var name: String
    /// What the font offers, each naming this font (`id`, `path`). The JSON (state file, faces) gives each
    /// as `bank`, `program` and `name`: its font is the one it is listed under.
    public var presets: [Preset]

    public init(id: Int, path: String, name: String, presets: [Preset]) {
        self.id = id; self.path = path; self.name = name; self.presets = presets
    }

    /// The font with `presets` given without their font (0.14's `PresetState`).
    @available(*, deprecated, message: "presets are Sampler's Preset, which names its font")
    @_disfavoredOverload  // `presets: []` picks the one above
    public init(id: Int, path: String, name: String, presets: [PresetState]) {
        self.init(id: id, path: path, name: name, listed: presets.map { ListedPreset(bank: $0.bank, program: $0.program, name: $0.name) })
    }

    private enum CodingKeys: String, CodingKey { case id, path, name, presets }
    /// A preset as the JSON has it, its font given by the `FontState` it is listed under.
    private struct ListedPreset: Codable { var bank: Int; var program: Int; var name: String }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let (id, path) = (try c.decode(Int.self, forKey: .id), try c.decode(String.self, forKey: .path))
        self.init(id: id, path: path, name: try c.decode(String.self, forKey: .name), listed: try c.decode([ListedPreset].self, forKey: .presets))
    }

    /// The font with presets given without it (the JSON's, 0.14's `PresetState`).
    private init(id: Int, path: String, name: String, listed: [ListedPreset]) {
        let font = SoundFontID(id: id, path: path)
        self.init(id: id, path: path, name: name, presets: listed.map { Preset(bank: $0.bank, program: $0.program, name: $0.name, soundFont: font) })
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(path, forKey: .path); try c.encode(name, forKey: .name)
        try c.encode(presets.map { ListedPreset(bank: $0.bank, program: $0.program, name: $0.name) }, forKey: .presets)
    }
}

/// 0.14's preset of a `FontState`, without its font; `FontState.presets` are `Sampler`'s `Preset` since 0.15.
@available(*, deprecated, message: "FontState.presets are Sampler's Preset")
public struct PresetState: Codable, Equatable, Sendable {
    public var bank: Int
    public var program: Int
    public var name: String

    public init(bank: Int, program: Int, name: String) {
        self.bank = bank; self.program = program; self.name = name
    }
}

/// A MIDI input connected to a sound module (a keyboard's ALSA port, a network peer, a JACK port).
public struct InputState: Codable, Equatable, Hashable, Sendable {
    /// As the host names it ("20:0 (USB Keyboard: Port 1)", "network peer iPad", "JACK midi_in").
    public var name: String

    public init(name: String) { self.name = name }
}

/// The song a sound module plays.
public struct SongState: Codable, Equatable, Sendable {
    public var path: String
    public var playing: Bool

    public init(path: String, playing: Bool) { self.path = path; self.playing = playing }
}

/// The recording a sound module writes.
public struct RecordingState: Codable, Equatable, Sendable {
    public var path: String
    /// Whether it is being written now.
    public var active: Bool

    public init(path: String, active: Bool) { self.path = path; self.active = active }
}
