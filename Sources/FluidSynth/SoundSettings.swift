/// How the sampler sounds beyond its basic settings: voices, interpolation, the reverb's and chorus's
/// parameters, which channels are drum channels and which channels play a forced program — what
/// FluidSynth's and TiMidity++'s users set on their command lines. Every render, playback, `live`
/// and `serve` session takes one (`Synthesizer.apply(_:)`); nil fields keep FluidSynth's defaults.
public struct SoundSettings: Hashable, Sendable {
    /// FluidSynth's sample interpolation (`synth.interpolation`... per channel): the order of the
    /// polynomial between sample points.
    public enum Interpolation: Int, Hashable, Sendable, CaseIterable {
        case none = 0, linear = 1, fourthOrder = 4, seventhOrder = 7
    }

    /// The reverb's parameters (FluidSynth's ranges; nil keeps the default).
    public struct Reverb: Hashable, Sendable {
        /// 0...1, default 0.2.
        public var roomSize: Double?
        /// 0...1, default 0.
        public var damping: Double?
        /// 0...100, default 0.5.
        public var width: Double?
        /// 0...1, default 0.9.
        public var level: Double?
        public init(roomSize: Double? = nil, damping: Double? = nil, width: Double? = nil, level: Double? = nil) {
            self.roomSize = roomSize; self.damping = damping; self.width = width; self.level = level
        }
    }

    /// The chorus's parameters (FluidSynth's ranges; nil keeps the default).
    public struct Chorus: Hashable, Sendable {
        public enum Waveform: Int, Hashable, Sendable, CaseIterable { case sine = 0, triangle = 1 }
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
        public init(voices: Int? = nil, level: Double? = nil, speed: Double? = nil, depth: Double? = nil, type: Waveform? = nil) {
            self.voices = voices; self.level = level; self.speed = speed; self.depth = depth; self.type = type
        }
    }

    /// A program a channel plays whatever the song's program changes and bank selects say.
    public struct ForcedProgram: Hashable, Sendable {
        public var program: UInt8
        public var bank: Int
        public init(program: UInt8, bank: Int = 0) { self.program = program; self.bank = bank }
    }

    /// The most voices at once (1...65535); nil: the synthesizer's setting (256).
    public var polyphony: Int?
    public var interpolation: Interpolation?
    public var reverb = Reverb()
    public var chorus = Chorus()
    /// The drum channels (0-based); nil: channel 10 (index 9) only, as General MIDI has it.
    public var drumChannels: Set<UInt8>?
    /// How bank selects are read (FluidSynth's `synth.midi-bank-select`); nil: GS, FluidSynth's default.
    /// Takes effect when the synthesizer is made (`SynthesizerSettings.bankSelectMode`).
    public var bankSelect: SynthesizerSettings.BankSelectMode?
    /// Forced programs by channel (0-based), as TiMidity's -EI/-EB.
    public var programs: [UInt8: ForcedProgram] = [:]

    /// Channels (0-based) that play from a SoundFont of their own (`--font-for`): their program
    /// changes pick presets from that font only. Load these fonts first (`fontLoadOrder(_:)`), so
    /// that they do not cover the other fonts' presets for the other channels.
    public var channelFonts: [UInt8: String] = [:]

    public init() {}

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
}
