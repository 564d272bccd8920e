import ArgumentParser
import FluidSynth

extension SoundSettings.Chorus.Waveform: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument { case "sine": self = .sine; case "triangle": self = .triangle; default: return nil }
    }
}

extension SynthesizerSettings.BankSelectMode: ExpressibleByArgument {}

/// The synth's sound controls (`SoundSettings`) on the command line: forced programs, drum channels,
/// bank-select mode, polyphony, interpolation, reverb and chorus parameters.
struct SoundControlArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Force a channel (1-16) to a program (0-127) and bank (default 0), ignoring the song's program changes and bank selects; repeat for more (TiMidity's -EI/-EB).", valueName: "CH=PROGRAM[:BANK]"))
    var program: [String] = []

    @Option(help: ArgumentHelp("Play a channel (1-16) from this SoundFont: its program changes pick presets from that font only; repeat for more.", valueName: "CH=FILE"))
    var fontFor: [String] = []

    @Option(help: ArgumentHelp("The drum channels (1-16), e.g. 10,11 (default 10); the others are melodic (TiMidity's -D).", valueName: "CH,..."))
    var drums: String?

    @Option(help: ArgumentHelp("How bank select (CC 0/32) is read: gm (ignored), gs (CC 0, the default), xg (CC 0 = 127 drums, CC 32 bank), mma (CC 0 x 128 + CC 32).", valueName: "gm|gs|xg|mma"))
    var bankSelect: SynthesizerSettings.BankSelectMode?

    @Option(parsing: .unconditional, help: ArgumentHelp("The most voices at once (1-65535, default 256).", valueName: "voices"))
    var polyphony: Int?

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
    var chorusType: SoundSettings.Chorus.Waveform?

    func validate() throws {
        _ = try soundSettings()
    }

    /// The settings these flags describe.
    func soundSettings() throws -> SoundSettings {
        let ranges = SoundSettings.ranges
        func check(_ value: Double?, _ range: ClosedRange<Double>, _ flag: String) throws -> Double? {
            try FlagRange.check(value, flag, atLeast: range.lowerBound, atMost: range.upperBound)
            return value
        }
        func check(_ value: Int?, _ range: ClosedRange<Int>, _ flag: String) throws -> Int? {
            try FlagRange.check(value, flag, in: range)
            return value
        }
        var sound = SoundSettings()
        sound.polyphony = try check(polyphony, ranges.polyphony, "--polyphony")
        if let interpolation {
            let names: [String: SoundSettings.Interpolation] = ["none": .none, "0": .none, "linear": .linear, "1": .linear, "4": .fourthOrder, "7": .seventhOrder]
            guard let method = names[interpolation] else { throw ValidationError("--interpolation must be none, linear, 4 or 7.") }
            sound.interpolation = method
        }
        sound.reverb = .init(roomSize: try check(reverbRoomSize, ranges.roomSize, "--reverb-room-size"),
                             damping: try check(reverbDamping, ranges.damping, "--reverb-damping"),
                             width: try check(reverbWidth, ranges.width, "--reverb-width"),
                             level: try check(reverbLevel, ranges.reverbLevel, "--reverb-level"))
        sound.chorus = .init(voices: try check(chorusVoices, ranges.chorusVoices, "--chorus-voices"),
                             level: try check(chorusLevel, ranges.chorusLevel, "--chorus-level"),
                             speed: try check(chorusSpeed, ranges.chorusSpeed, "--chorus-speed"),
                             depth: try check(chorusDepth, ranges.chorusDepth, "--chorus-depth"), type: chorusType)
        sound.bankSelect = bankSelect
        if let drums {
            let channels = drums.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !channels.isEmpty, channels.allSatisfy({ $0.map { (1...16).contains($0) } ?? false }) else {
                throw ValidationError("--drums takes channels 1 to 16 separated by commas, not '\(drums)'.")
            }
            sound.drumChannels = Set(channels.map { UInt8($0! - 1) })
        }
        for text in fontFor {
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let channel = Int(parts[0]), (1...16).contains(channel), !parts[1].isEmpty else {
                throw ValidationError("--font-for takes CHANNEL=FILE (channel 1-16), not '\(text)'.")
            }
            sound.channelFonts[UInt8(channel - 1)] = String(parts[1])
        }
        for text in program {
            let parts = text.split(separator: "=", maxSplits: 1)
            let value = parts.count == 2 ? parts[1].split(separator: ":", maxSplits: 1) : []
            guard parts.count == 2, let channel = Int(parts[0]), (1...16).contains(channel),
                  let program = value.first.flatMap({ Int($0) }), (0...127).contains(program),
                  let bank = value.count == 2 ? Int(value[1]) : 0, (0...16_383).contains(bank) else {
                throw ValidationError("--program takes CHANNEL=PROGRAM[:BANK] (channel 1-16, program 0-127, bank 0-16383), not '\(text)'.")
            }
            sound.programs[UInt8(channel - 1)] = .init(program: UInt8(program), bank: bank)
        }
        return sound
    }
}
