import ArgumentParser
import AudioFiles
import LV2
import Sampler
import MIDIFile
import Rendering

/// What a song's render adds around the sampler (`seqplay SONG`, rendering and playback alike):
/// the sample rate, the effect chain and the tail. The sampler's own flags are `SamplerArguments`.
struct SoundArguments: ParsableArguments {
    @OptionGroup var rate: SampleRateArgument

    @Option(help: ArgumentHelp("Effects after the sampler, in order, e.g. 'eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter'. Effects: eq:TYPE,FREQ,GAIN,BW reverb:PRESET,WET delay:TIME,FEEDBACK,CUTOFF,WET chorus:VOICES,RATE,DEPTH,WET,TYPE distortion:MODE,PREGAIN,WET compressor:THRESHOLD,RATIO,ATTACK,RELEASE,MAKEUP,KNEE limiter:CEILING,ATTACK,RELEASE,PREGAIN lv2:URI[,SYMBOL=VALUE…][,preset=NAME] (an LV2 plugin: seqplay plugins --where effect) varispeed:RATE (last).", valueName: "chain"))
    var fx: String?

    @OptionGroup var instruments: InstrumentArguments

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of audio after the last event (default: until silent, at most 3).", valueName: "seconds"))
    var tail: Double?

    func validate() throws {
        try FlagRange.seconds(tail, "--tail")
        try FlagRange.check(rate.sampleRate, "--sample-rate", in: SongRenderer.supportedSampleRates, unit: " Hz")
        _ = try effectChain()
    }

    /// The sample rate asked for, else a song's default.
    var sampleRate: Int { rate.sampleRate(for: .song) }

    private func effectChain() throws -> EffectChainSpec? {
        guard let fx else { return nil }
        return try parsedFlag("--fx") { try EffectChainSpec(parsing: fx) }
    }

    /// The render options these flags, the sampler's settings and `song`'s playback flags describe.
    func renderOptions(song: SongArguments, sequence: MusicSequence, sampler: SamplerSettings) throws -> RenderOptions {
        var options = RenderOptions()
        options.effects = try effectChain()
        options.instruments = try instruments.assignments()
        options.sampleRate = sampleRate
        options.sampler = sampler
        options.song = song.songOptions(for: sequence)
        if let tail { options.tail = .fixed(seconds: tail) }
        return options
    }
}

/// Where rendered audio goes with `-o`.
struct FileArguments: ParsableArguments {
    @Option(name: [.short, .long], help: ArgumentHelp("Write the audio to this file instead of playing it; '-' streams WAV to standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("File format, if not the one the extension names.", valueName: "wav|aiff|flac|ogg|mp3|opus"))
    var format: AudioFileFormat?

    @Option(help: ArgumentHelp("Sample format: 16, 24 or 32-bit integer, or 32-bit float (default 16; Ogg has none).", valueName: "16|24|32|float"))
    var bitDepth: BitDepthArgument?
}
