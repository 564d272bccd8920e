import ArgumentParser
import AudioFiles
import AudioGraph
import Effects
import MIDIFile
import Rendering

/// How the sampler sounds (`seqplay SONG`, rendering and playback alike): SoundFonts, rate, gain,
/// reverb/chorus, the effect chain and the tail.
struct SoundArguments: ParsableArguments {
    @Option(name: .customLong("sf2"), help: ArgumentHelp("A SoundFont (.sf2/.sf3) to play with; repeat to layer fonts (later ones win).", valueName: "file"))
    var soundFonts: [String] = []

    @Option(name: [.customShort("r"), .long], parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz (8000 to 96000).", valueName: "Hz"))
    var sampleRate = 44_100

    @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Master volume of the synthesizer (FluidSynth's default 0.2; 0.5 is louder, may clip).", valueName: "gain"))
    var gain: Float = 0.2

    @Flag(help: "Turn the SoundFont's reverb off.")
    var noReverb = false

    @Flag(help: "Turn the SoundFont's chorus off.")
    var noChorus = false

    @Option(help: ArgumentHelp("Effects after the sampler, in order, e.g. 'eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter'. Effects: eq:TYPE,FREQ,GAIN,BW reverb:PRESET,WET delay:TIME,FEEDBACK,CUTOFF,WET chorus:VOICES,RATE,DEPTH,WET,TYPE distortion:MODE,PREGAIN,WET compressor:THRESHOLD,RATIO,ATTACK,RELEASE,MAKEUP,KNEE limiter:CEILING,ATTACK,RELEASE,PREGAIN varispeed:RATE (last).", valueName: "chain"))
    var fx: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of audio after the last event (default: until silent, at most 3).", valueName: "seconds"))
    var tail: Double?

    func validate() throws {
        try FlagRange.seconds(tail, "--tail")
        try FlagRange.check(Double(gain), "--gain", atLeast: 0, atMost: 10)
        try FlagRange.check(sampleRate, "--sample-rate", in: SongRenderer.supportedSampleRates, unit: " Hz")
        _ = try effectChain()
    }

    /// The SoundFonts to load: those given, else the default one (see `SoundFontLocator`).
    var fontPaths: [String] { SoundFontLocator.paths(given: soundFonts) }

    private func effectChain() throws -> EffectChainSpec? {
        guard let fx else { return nil }
        do {
            return try EffectChainSpec(parsing: fx)
        } catch {
            throw ValidationError("--fx: \(error)")
        }
    }

    /// The render options these flags and `song`'s playback flags describe.
    func renderOptions(song: SongArguments, sequence: MusicSequence) throws -> RenderOptions {
        var options = RenderOptions()
        options.effects = try effectChain()
        options.sampleRate = sampleRate
        options.gain = gain
        options.reverbEnabled = !noReverb
        options.chorusEnabled = !noChorus
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
