import Foundation

// Foundation only: Scripts/fuzz.sh compiles this file alone as FluidSynth, for the control faces'
// parsers (their commands carry its reverb and chorus).

/// How a SoundFont sampler sounds: the one settings value every synthesizer takes, whoever makes it
/// (`Synthesizer`, `SamplerNode`, a song's render, the live sampler, a batch of renders).
///
/// It holds what FluidSynth's and TiMidity++'s users set on their command lines: polyphony,
/// interpolation, bank-select mode, master gain, reverb and chorus (on/off and parameters), and per
/// channel the forced programs, the fonts and the drum channels. Optional parameters left nil keep
/// FluidSynth's defaults. The sample rate is not here: it is the output's (or the render's), which
/// the sampler follows. Nor are the SoundFonts every channel plays: they are loaded once and shared
/// by every synthesizer of a render (`SharedSoundFonts`); `fontLoadOrder(_:)` orders them.
public struct SamplerSettings: Hashable, Sendable {
    /// How bank-select controllers (CC 0 / CC 32) choose a bank, as in FluidSynth's
    /// `synth.midi-bank-select`.
    public enum BankSelectMode: String, Hashable, Sendable, CaseIterable {
        /// General MIDI: bank select is ignored.
        case gm
        /// Roland GS: CC 0 selects the bank, CC 32 is ignored (FluidSynth's default).
        case gs
        /// Yamaha XG: CC 0 = 120/127 selects drums, CC 32 selects the bank.
        case xg
        /// MIDI Manufacturers Association: bank = CC 0 × 128 + CC 32.
        case mma
    }

    /// FluidSynth's sample interpolation (per channel): the order of the polynomial between sample points.
    public enum Interpolation: Int, Hashable, Sendable, CaseIterable {
        case none = 0, linear = 1, fourthOrder = 4, seventhOrder = 7

        /// The method named `none` (or `0`), `linear` (`1`), `4` or `7`; nil for any other name.
        public init?(name: String) {
            let names: [String: Interpolation] = ["none": .none, "0": .none, "linear": .linear, "1": .linear,
                                                  "4": .fourthOrder, "7": .seventhOrder]
            guard let method = names[name] else { return nil }
            self = method
        }
    }

    /// The reverb: on or off, and its parameters (FluidSynth's ranges, `SamplerSettings.ranges`). A
    /// field left nil is not given: a synthesizer made with it keeps FluidSynth's default (`defaults`,
    /// on), a control command (`ControlCommand.reverb`) leaves it as it is; a sound module's state
    /// (`ControlState.reverb`) gives every field. Its JSON, the state's: `enabled`, `roomSize`,
    /// `damping`, `width`, `level`.
    public struct Reverb: Hashable, Sendable, Codable {
        /// Whether the reverb is on; nil: on (FluidSynth's default), or as it is.
        public var isEnabled: Bool?
        /// 0...1, default 0.2.
        public var roomSize: Double?
        /// 0...1, default 0.
        public var damping: Double?
        /// 0...100, default 0.5.
        public var width: Double?
        /// 0...1, default 0.9.
        public var level: Double?
        public init(isEnabled: Bool? = nil, roomSize: Double? = nil, damping: Double? = nil, width: Double? = nil, level: Double? = nil) {
            self.isEnabled = isEnabled
            self.roomSize = roomSize; self.damping = damping; self.width = width; self.level = level
        }

        /// FluidSynth 2.3's reverb, every field given: on, room size 0.2, damping 0, width 0.5, level 0.9.
        public static let defaults = Reverb(isEnabled: true, roomSize: 0.2, damping: 0, width: 0.5, level: 0.9)

        /// This reverb with each field `change` gives (not nil) replaced.
        public func updated(with change: Reverb) -> Reverb {
            Reverb(isEnabled: change.isEnabled ?? isEnabled, roomSize: change.roomSize ?? roomSize, damping: change.damping ?? damping,
                   width: change.width ?? width, level: change.level ?? level)
        }

        private enum CodingKeys: String, CodingKey { case isEnabled = "enabled", roomSize, damping, width, level }
    }

    /// The chorus: on or off, and its parameters (FluidSynth's ranges, `SamplerSettings.ranges`). A
    /// field left nil is not given: a synthesizer made with it keeps FluidSynth's default (`defaults`,
    /// on), a control command (`ControlCommand.chorus`) leaves it as it is; a sound module's state
    /// (`ControlState.chorus`) gives every field (the waveform nil unless the sampler was made with
    /// one). Its JSON, the state's: `enabled`, `voices`, `level`, `speed`, `depth`; not the
    /// waveform, which the control faces neither show nor change.
    public struct Chorus: Hashable, Sendable, Codable {
        /// The shape of the chorus's modulation.
        public enum Waveform: Int, Hashable, Sendable, CaseIterable { case sine = 0, triangle = 1 }
        /// Whether the chorus is on; nil: on (FluidSynth's default), or as it is.
        public var isEnabled: Bool?
        /// 0...99 delay lines, default 3.
        public var voices: Int?
        /// 0...10, default 2.
        public var level: Double?
        /// Modulation speed 0.1...5 Hz, default 0.3.
        public var speed: Double?
        /// Modulation depth 0...256 ms, default 8.
        public var depth: Double?
        /// Modulation waveform, default sine.
        public var type: Waveform?
        public init(isEnabled: Bool? = nil, voices: Int? = nil, level: Double? = nil, speed: Double? = nil,
                    depth: Double? = nil, type: Waveform? = nil) {
            self.isEnabled = isEnabled
            self.voices = voices; self.level = level; self.speed = speed; self.depth = depth; self.type = type
        }

        /// FluidSynth 2.3's chorus, every field given but the waveform (sine, left nil): on, 3 voices,
        /// level 2, speed 0.3 Hz, depth 8 ms.
        public static let defaults = Chorus(isEnabled: true, voices: 3, level: 2, speed: 0.3, depth: 8)

        /// This chorus with each field `change` gives (not nil) replaced.
        public func updated(with change: Chorus) -> Chorus {
            Chorus(isEnabled: change.isEnabled ?? isEnabled, voices: change.voices ?? voices, level: change.level ?? level,
                   speed: change.speed ?? speed, depth: change.depth ?? depth, type: change.type ?? type)
        }

        private enum CodingKeys: String, CodingKey { case isEnabled = "enabled", voices, level, speed, depth }
    }

    /// A program a channel plays whatever the song's program changes and bank selects say.
    public struct ForcedProgram: Hashable, Sendable {
        /// 0...127.
        public var program: UInt8
        /// 0...16383 (128: the drum kits).
        public var bank: Int
        public init(program: UInt8, bank: Int = 0) { self.program = program; self.bank = bank }
    }

    /// The synthesis engine that plays SoundFonts (`--engine`).
    public enum Engine: String, Hashable, Sendable, CaseIterable {
        /// libfluidsynth 2.3: the reference, and the default.
        case fluidsynth
        /// seqplay's own engine (`SoundFontEngine`, issue 31): every event on its own sample; opt-in while
        /// it is completed.
        case seqplay
    }

    /// The engine that plays (set when the sampler is made); FluidSynth unless `.seqplay` is asked for.
    public var engine: Engine = .fluidsynth
    /// The threads seqplay's engine does its voices' sample work on (`SoundFontEngine`'s `threads`; the
    /// output is the same bytes on any number); FluidSynth ignores it. Renders to files set it from `--threads`.
    public var engineThreads = 1
    /// The most voices that sound at once (1...65535); further notes steal the quietest voice.
    public var polyphony: Int
    /// Sample interpolation; nil: FluidSynth's default, 4th order.
    public var interpolation: Interpolation?
    /// How bank selects are read (set when the synthesizer is made).
    public var bankSelect: BankSelectMode
    /// Master gain applied to the output (FluidSynth's default is 0.2).
    public var gain: Float
    /// The reverb, on unless it says off.
    public var reverb: Reverb
    /// The chorus, on unless it says off.
    public var chorus: Chorus
    /// The drum channels (0-based); nil: channel 10 (index 9) only, as General MIDI has it.
    public var drumChannels: Set<UInt8>?
    /// Forced programs by channel (0-based), as TiMidity's -EI/-EB.
    public var programs: [UInt8: ForcedProgram]
    /// Channels (0-based) that play from a SoundFont of their own: their program changes pick
    /// presets from that font only. Load these fonts first (`fontLoadOrder(_:)`), so that they do
    /// not cover the other fonts' presets for the other channels.
    public var channelFonts: [UInt8: String]
    /// Note limiting for dense songs: the most notes held at once on one key of a channel (1...128);
    /// a further note-on first releases the oldest, with FluidSynth's release (`--max-notes-per-key`).
    /// Nil: no limit.
    public var maximumNotesPerKey: Int? = nil
    /// Note limiting for dense songs: note-ons quieter than this (1...127) are skipped, and their
    /// note-offs with them (`--min-velocity`). Nil: every note plays.
    public var minimumVelocity: UInt8? = nil

    public init(polyphony: Int = 256, interpolation: Interpolation? = nil, bankSelect: BankSelectMode = .gs,
                gain: Float = 0.2, reverb: Reverb = Reverb(), chorus: Chorus = Chorus(),
                drumChannels: Set<UInt8>? = nil, programs: [UInt8: ForcedProgram] = [:], channelFonts: [UInt8: String] = [:]) {
        self.polyphony = polyphony
        self.interpolation = interpolation
        self.bankSelect = bankSelect
        self.gain = gain
        self.reverb = reverb
        self.chorus = chorus
        self.drumChannels = drumChannels
        self.programs = programs
        self.channelFonts = channelFonts
    }

    /// The fonts to load, in order: the channel fonts (once each), then `fonts`.
    public func fontLoadOrder(_ fonts: [String]) -> [String] {
        var ordered: [String] = []
        for path in channelFonts.sorted(by: { $0.key < $1.key }).map(\.value) where !ordered.contains(path) { ordered.append(path) }
        return ordered + fonts
    }

    /// The ranges the parameters take, for validation and help text.
    public static let ranges = (roomSize: 0.0...1.0, damping: 0.0...1.0, width: 0.0...100.0, reverbLevel: 0.0...1.0,
                                chorusVoices: 0...99, chorusLevel: 0.0...10.0, chorusSpeed: 0.1...5.0, chorusDepth: 0.0...256.0,
                                polyphony: 1...65_535)
    /// The ranges the note-limiting settings take (`maximumNotesPerKey`, `minimumVelocity`).
    public static let noteLimitRanges = (maximumNotesPerKey: 1...128, minimumVelocity: 1...127)
}

// MARK: Per-channel settings written as text

extension SamplerSettings {
    /// Why a per-channel setting written as text cannot be read; the description says what it takes
    /// (a command line puts its flag before it: "--program takes CHANNEL=...").
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// A forced program for one channel, written `CH=PROGRAM[:BANK]` (channel 1-16, program 0-127,
    /// bank 0-16383, default 0), as `--program` takes it.
    public struct ProgramAssignment: Hashable, Sendable {
        /// 0-based.
        public var channel: UInt8
        public var program: ForcedProgram

        public init(channel: UInt8, program: ForcedProgram) { self.channel = channel; self.program = program }

        public init(parsing text: String) throws(ParseError) {
            let assignment = SamplerSettings.channelAssignment(text)
            let value = assignment?.value.split(separator: ":", maxSplits: 1) ?? []
            guard let assignment, let program = value.first.flatMap({ Int($0) }), (0...127).contains(program),
                  let bank = value.count == 2 ? Int(value[1]) : 0, (0...16_383).contains(bank) else {
                throw ParseError(description: "takes CHANNEL=PROGRAM[:BANK] (channel 1-16, program 0-127, bank 0-16383), not '\(text)'.")
            }
            self.init(channel: assignment.channel, program: ForcedProgram(program: UInt8(program), bank: bank))
        }
    }

    /// A SoundFont for one channel, written `CH=FILE` (channel 1-16), as `--font-for` takes it.
    public struct FontAssignment: Hashable, Sendable {
        /// 0-based.
        public var channel: UInt8
        public var path: String

        public init(channel: UInt8, path: String) { self.channel = channel; self.path = path }

        public init(parsing text: String) throws(ParseError) {
            guard let assignment = SamplerSettings.channelAssignment(text) else {
                throw ParseError(description: "takes CHANNEL=FILE (channel 1-16), not '\(text)'.")
            }
            self.init(channel: assignment.channel, path: String(assignment.value))
        }
    }

    /// `CH=VALUE` with a channel 1-16 and a value not empty: the channel (0-based) and the value; nil
    /// for anything else. What `ProgramAssignment` and `FontAssignment` are written as.
    private static func channelAssignment(_ text: String) -> (channel: UInt8, value: Substring)? {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let channel = Int(parts[0]), (1...16).contains(channel), !parts[1].isEmpty else { return nil }
        return (UInt8(channel - 1), parts[1])
    }

    /// Drum channels written as channels 1-16 separated by commas (`10,11`), as `--drums` takes them.
    public struct DrumChannelList: Hashable, Sendable {
        /// 0-based.
        public var channels: Set<UInt8>

        public init(channels: Set<UInt8>) { self.channels = channels }

        public init(parsing text: String) throws(ParseError) {
            let channels = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !channels.isEmpty, channels.allSatisfy({ $0.map { (1...16).contains($0) } ?? false }) else {
                throw ParseError(description: "takes channels 1 to 16 separated by commas, not '\(text)'.")
            }
            self.init(channels: Set(channels.map { UInt8($0! - 1) }))
        }
    }
}
