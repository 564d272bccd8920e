import ArgumentParser
import Sampler
import SoundFontFile

extension SamplerSettings.Chorus.Waveform: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument { case "sine": self = .sine; case "triangle": self = .triangle; default: return nil }
    }

    public static var allValueStrings: [String] { ["sine", "triangle"] }
}

extension SamplerSettings.BankSelectMode: ExpressibleByArgument {}

extension SamplerSettings.Engine: ExpressibleByArgument {}

/// How the sampler sounds, on the command line of every command that plays through it (`seqplay
/// SONG`, `render`, `live`, `serve`): the SoundFonts, gain, reverb and chorus, and the controls
/// FluidSynth's and TiMidity's users know (forced programs, channel fonts, drum channels, bank
/// select, polyphony, interpolation, effect parameters). Builds one `SamplerSettings`.
struct SamplerArguments: ParsableArguments {
    @Option(name: .customLong("sf2"), help: ArgumentHelp("A SoundFont (.sf2/.sf3) to play with; repeat to layer fonts (later ones win).", valueName: "file"))
    var soundFonts: [String] = []

    @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Master volume of the synthesizer (FluidSynth's default 0.2; 0.5 is louder, may clip).", valueName: "gain"))
    var gain: Float = 0.2

    @Flag(help: "Turn the SoundFont's reverb off.")
    var noReverb = false

    @Flag(help: "Turn the SoundFont's chorus off.")
    var noChorus = false

    @Option(help: ArgumentHelp("Force a channel (1-16) to a program (0-127) and bank (default 0), ignoring the song's program changes and bank selects; repeat for more (TiMidity's -EI/-EB).", valueName: "CH=PROGRAM[:BANK]"))
    var program: [String] = []

    @Option(help: ArgumentHelp("Play a channel (1-16) from this SoundFont: its program changes pick presets from that font only; repeat for more.", valueName: "CH=FILE"))
    var fontFor: [String] = []

    @Option(help: ArgumentHelp("The drum channels (1-16), e.g. 10,11 (default 10); the others are melodic (TiMidity's -D).", valueName: "CH,..."))
    var drums: String?

    @Option(help: ArgumentHelp("How bank select (CC 0/32) is read: gm (ignored), gs (CC 0, the default), xg (CC 0 = 127 drums, CC 32 bank), mma (CC 0 x 128 + CC 32).", valueName: "gm|gs|xg|mma"))
    var bankSelect: SamplerSettings.BankSelectMode?

    @Option(help: ArgumentHelp("The SoundFont synthesis engine: fluidsynth (libfluidsynth, the default) or seqplay (seqplay's own, opt-in while it is completed: every note on its exact sample).", valueName: "fluidsynth|seqplay"))
    var engine: SamplerSettings.Engine = .fluidsynth

    @Option(parsing: .unconditional, help: ArgumentHelp("The most voices at once (1-65535, default 256).", valueName: "voices"))
    var polyphony: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Dense songs: the most notes held at once on one key of a channel (1-128); a further note-on first releases the oldest (default: no limit).", valueName: "notes"))
    var maxNotesPerKey: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Dense songs: skip notes quieter than this velocity (1-127), their note-offs with them (default: play all).", valueName: "velocity"))
    var minVelocity: Int?

    @Option(help: ArgumentHelp("Sample interpolation: none, linear, 4 (4th order, the default) or 7 (7th order).", valueName: "none|linear|4|7"))
    var interpolation: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Reverb room size, 0-1 (default 0.2).", valueName: "0-1"))
    var reverbRoomSize: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Reverb damping, 0-1 (default 0).", valueName: "0-1"))
    var reverbDamping: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Reverb stereo width, 0-100 (default 0.5).", valueName: "0-100"))
    var reverbWidth: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Reverb level, 0-1 (default 0.9).", valueName: "0-1"))
    var reverbLevel: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Chorus voices (delay lines), 0-99 (default 3).", valueName: "0-99"))
    var chorusVoices: Int?
    @Option(parsing: .unconditional, help: ArgumentHelp("Chorus level, 0-10 (default 2).", valueName: "0-10"))
    var chorusLevel: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Chorus modulation speed, 0.1-5 Hz (default 0.3).", valueName: "Hz"))
    var chorusSpeed: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Chorus modulation depth, 0-256 ms (default 8).", valueName: "ms"))
    var chorusDepth: Double?
    @Option(help: ArgumentHelp("Chorus modulation waveform (default sine).", valueName: "sine|triangle"))
    var chorusType: SamplerSettings.Chorus.Waveform?

    func validate() throws {
        try FlagRange.check(Double(gain), "--gain", atLeast: 0, atMost: 10)
        _ = try settings()
    }

    /// The SoundFonts to load: those given, else the default one (`SoundFontLocator`); throws
    /// `SoundFontLocator.NotFound` when there is none.
    func fontPaths() throws -> [String] {
        try SoundFontLocator().paths(given: soundFonts)
    }

    /// The settings these flags describe.
    func settings() throws -> SamplerSettings {
        let ranges = SamplerSettings.ranges
        func check(_ value: Double?, _ range: ClosedRange<Double>, _ flag: String) throws -> Double? {
            try FlagRange.check(value, flag, atLeast: range.lowerBound, atMost: range.upperBound)
            return value
        }
        func check(_ value: Int?, _ range: ClosedRange<Int>, _ flag: String) throws -> Int? {
            try FlagRange.check(value, flag, in: range)
            return value
        }
        var settings = SamplerSettings(gain: gain)
        settings.reverb.isEnabled = !noReverb
        settings.chorus.isEnabled = !noChorus
        settings.engine = engine
        if let polyphony = try check(polyphony, ranges.polyphony, "--polyphony") { settings.polyphony = polyphony }
        let limits = SamplerSettings.noteLimitRanges
        settings.maximumNotesPerKey = try check(maxNotesPerKey, limits.maximumNotesPerKey, "--max-notes-per-key")
        settings.minimumVelocity = try check(minVelocity, limits.minimumVelocity, "--min-velocity").map(UInt8.init)
        if let interpolation {
            guard let method = SamplerSettings.Interpolation(name: interpolation) else {
                throw ValidationError("--interpolation must be none, linear, 4 or 7.")
            }
            settings.interpolation = method
        }
        settings.reverb.roomSize = try check(reverbRoomSize, ranges.roomSize, "--reverb-room-size")
        settings.reverb.damping = try check(reverbDamping, ranges.damping, "--reverb-damping")
        settings.reverb.width = try check(reverbWidth, ranges.width, "--reverb-width")
        settings.reverb.level = try check(reverbLevel, ranges.reverbLevel, "--reverb-level")
        settings.chorus.voices = try check(chorusVoices, ranges.chorusVoices, "--chorus-voices")
        settings.chorus.level = try check(chorusLevel, ranges.chorusLevel, "--chorus-level")
        settings.chorus.speed = try check(chorusSpeed, ranges.chorusSpeed, "--chorus-speed")
        settings.chorus.depth = try check(chorusDepth, ranges.chorusDepth, "--chorus-depth")
        settings.chorus.type = chorusType
        if let bankSelect { settings.bankSelect = bankSelect }
        if let drums {
            settings.drumChannels = try parsedFlag("--drums", separator: " ") { try SamplerSettings.DrumChannelList(parsing: drums).channels }
        }
        for text in fontFor {
            let font = try parsedFlag("--font-for", separator: " ") { try SamplerSettings.FontAssignment(parsing: text) }
            settings.channelFonts[font.channel] = font.path
        }
        for text in program {
            let forced = try parsedFlag("--program", separator: " ") { try SamplerSettings.ProgramAssignment(parsing: text) }
            settings.programs[forced.channel] = forced.program
        }
        return settings
    }
}
