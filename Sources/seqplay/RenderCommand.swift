import ALSA
import ArgumentParser
import AudioFiles
import AudioGraph
import AudioOutput
import Effects
import Foundation
import MIDIFile
import Player
import Rendering

/// `seqplay SONG.mid`: plays a MIDI file through a SoundFont to the sound card, or with `-o SONG.wav`
/// renders it to an audio file (the default command). Parses the flags, finds the SoundFont, and
/// reports; `SongRenderer` (and `SongPlayback` through `RealtimePlayback`) do the work.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Play a MIDI file through a SoundFont, or render it to an audio file (the default command).",
        discussion: """
        Examples:
          seqplay song.mid --sf2 piano.sf2        (play to the sound card)
          seqplay song.mid --device hw:1,0 --period 128 --periods 3 -v
          seqplay song.mid --fx 'eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter'
          seqplay song.mid --device hw:0,0 --channel-map main:3-4
          seqplay song.mid -o song.wav            (default SoundFont)
          seqplay song.mid --sf2 piano.sf2 -o song.flac
          seqplay song.mid -o song.wav --bit-depth 24 --sample-rate 48000
          seqplay song.mid -o - | sox -t wav - -d     (stream WAV to a player)
          seqplay song.mid -o solo.wav --solo 2 --transpose -2 --rate 0.8
          seqplay song.mid -o verse.wav --start 17:1 --end 33:1 --loop 2
          seqplay song.mid --network-connect 127.0.0.1:5004   (play to `seqplay serve --network`)
          seqplay song.mid --port 14:0 --clock    (to a sequencer port with MIDI clock, and the sampler)
          seqplay song.mid --port 20:0,24:0 --no-audio   (only the ports, as `seqplay send`)
          seqplay song.mid --route alsa           (to the sampler through the sequencer: aseqdump can watch)
          seqplay render corpus/ more.mid --output-dir out --jobs 2   (many songs; see --output-dir)

        Positions (--start, --end, --loop-from, --loop-to) are seconds
        (42, 12.5s) or bar:beat[:tick] (17:1, 9:3:240). Track numbers are
        the ones `seqplay info` lists (from 0); channels are 1 to 16
        (drums are usually on 10).

        While playing on a terminal: space pauses and resumes, left/right
        arrows seek 5 s back/forward, q quits; Ctrl-C ends with all notes
        off and the device drained. --fx applies the same effect chain
        to playback and to -o rendering (seqplay help render lists the
        effects in the --fx help).

        Without --sf2 the SoundFont is $SEQPLAY_SOUNDFONT, else Debian's
        /usr/share/sounds/sf2/default-GM.sf2, else the seqplay-gm.sf2 that
        ships with seqplay.

        Exit status: 0 done, 1 other failure, 3 bad MIDI file, 4 bad
        SoundFont, 5 a file cannot be read or written (or no sound card,
        or the device failed), 6 no ALSA sequencer (--port, --route alsa),
        7 the network peer did not answer and clock-sync within 15 s,
        8 the network address cannot be used, 64 bad command line,
        130 interrupted (Ctrl-C).
        """
    )

    @Argument(help: "The MIDI file (.mid) to play; with --output-dir, any number of files and directories ('-': a list on standard input).")
    var songs: [String] = []
    var song: String { songs.first ?? "" }

    @OptionGroup(title: "Many songs (render to a directory)")
    var batch: BatchArguments

    @Option(name: .customLong("sf2"), help: ArgumentHelp("A SoundFont (.sf2/.sf3) to play with; repeat to layer fonts (later ones win).", valueName: "file"))
    var soundFonts: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Write the audio to this file instead of playing it; '-' streams WAV to standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("File format, if not the one the extension names.", valueName: "wav|aiff|flac|ogg"))
    var format: AudioFileFormat?

    @Option(help: ArgumentHelp("Sample format: 16, 24 or 32-bit integer, or 32-bit float (default 16; Ogg has none).", valueName: "16|24|32|float"))
    var bitDepth: BitDepthArgument?

    @Option(name: [.customShort("r"), .long], parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz (8000 to 96000).", valueName: "Hz"))
    var sampleRate = 44_100

    @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Master volume of the synthesizer (FluidSynth's default 0.2; 0.5 is louder, may clip).", valueName: "gain"))
    var gain: Float = 0.2

    @Flag(help: "Turn the SoundFont's reverb off.")
    var noReverb = false

    @Flag(help: "Turn the SoundFont's chorus off.")
    var noChorus = false

    @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Shift every note by this many semitones (drums on channel 10 stay put).", valueName: "semitones"))
    var transpose = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Tempo factor: 2 plays twice as fast, 0.5 at half speed (pitch unchanged).", valueName: "factor"))
    var rate = 1.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Start playing here (controllers and instruments set before it still apply).", valueName: "position"))
    var start: PositionArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop playing here.", valueName: "position"))
    var end: PositionArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Play the song (or the --loop-from/--loop-to region) this many times in all.", valueName: "count"))
    var loop: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Start of the region --loop repeats (default: --start).", valueName: "position"))
    var loopFrom: PositionArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("End of the region --loop repeats (default: --end).", valueName: "position"))
    var loopTo: PositionArgument?

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Silence a track; repeat for more.", valueName: "track"))
    var mute: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Play only this track (and any other soloed ones); repeat for more.", valueName: "track"))
    var solo: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Silence a MIDI channel (1-16); repeat for more.", valueName: "channel"))
    var muteChannel: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Play only this MIDI channel (1-16); repeat for more.", valueName: "channel"))
    var soloChannel: [Int] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of audio after the last event (default: until silent, at most 3).", valueName: "seconds"))
    var tail: Double?

    @Flag(help: "Refuse a MIDI file that needs repair instead of repairing it.")
    var strict = false

    @Option(help: ArgumentHelp("Play the song in real time to the network MIDI session at this address (e.g. `seqplay serve --network` or a Mac's session).", valueName: "host:port"))
    var networkConnect: String?

    @Flag(help: "With --network-connect or --port: do not also play to the sound card.")
    var noAudio = false

    @Option(name: .customLong("port"), help: ArgumentHelp("Play the song to this ALSA sequencer port (14:0, 'Midi Through:0', a client name) on a kernel queue, the sampler in step with it unless --no-audio; repeat or separate with commas (SMF port meta events pick among them, as in aplaymidi).", valueName: "port"))
    var ports: [String] = []

    @Option(help: ArgumentHelp("How the song reaches the sampler: direct (in process, block-exact) or alsa (through seqplay's sequencer output port to the sampler's input port, so other programs can watch it; exit 6 without a sequencer).", valueName: "direct|alsa"))
    var route: SongRoute = .direct

    @Flag(help: "With --port: also send MIDI clock (24 per quarter note) with Song Position, Start and Stop.")
    var clock = false

    @OptionGroup(title: "Network MIDI (with --network-connect)")
    var networkOptions: NetworkArguments

    @Option(help: ArgumentHelp("Effects after the sampler, in order, e.g. 'eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter'. Effects: eq:TYPE,FREQ,GAIN,BW reverb:PRESET,WET delay:TIME,FEEDBACK,CUTOFF,WET distortion:MODE,PREGAIN,WET compressor:THRESHOLD,RATIO,ATTACK,RELEASE,MAKEUP,KNEE limiter:CEILING,ATTACK,RELEASE,PREGAIN varispeed:RATE (last).", valueName: "chain"))
    var fx: String?

    @Option(help: ArgumentHelp("Sound device to play to (ALSA name: default, hw:1,0, plughw:1,0, ...).", valueName: "name"))
    var device = "default"

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames per period of the sound device (latency: period x periods).", valueName: "frames"))
    var period = 256

    @Option(parsing: .unconditional, help: ArgumentHelp("Periods in the sound device's buffer.", valueName: "count"))
    var periods = 3

    @Option(help: ArgumentHelp("Playback: send the stereo mix to these device channels, e.g. main:3-4 (channels from 1).", valueName: "map"))
    var channelMap: String?

    @Flag(name: [.short, .long], help: "Say which device format and render-thread priority playback got, and the xrun count.")
    var verbose = false

    func validate() throws {
        try validateSongCount()
        if let loop, loop < 1 { throw ValidationError("--loop needs a count of 1 or more (1 plays once).") }
        if (loopFrom != nil || loopTo != nil) && loop == nil { throw ValidationError("--loop-from/--loop-to need --loop COUNT.") }
        if networkConnect != nil && output != nil {
            throw ValidationError("--network-connect plays in real time; it cannot be combined with -o.")
        }
        try validatePorts()
        try FlagRange.seconds(tail, "--tail")
        try FlagRange.check(Double(gain), "--gain", atLeast: 0, atMost: 10)
        try FlagRange.check(sampleRate, "--sample-rate", in: SongRenderer.supportedSampleRates, unit: " Hz")
        try FlagRange.check(transpose, "--transpose", in: -127...127, unit: " semitones")
        try FlagRange.check(rate, "--rate", above: 0, atMost: 100)
        try FlagRange.check(rate, "--rate", atLeast: 0.01, atMost: 100)
        for (position, flag) in [(start, "--start"), (end, "--end"), (loopFrom, "--loop-from"), (loopTo, "--loop-to")] {
            try FlagRange.seconds(position?.seconds, flag)
        }
        try FlagRange.check(mute + solo, "--mute/--solo", in: 0...Int.max)
        try FlagRange.check(muteChannel, "--mute-channel", in: 1...16)
        try FlagRange.check(soloChannel, "--solo-channel", in: 1...16)
        try FlagRange.check(period, "--period", in: 16...8192, unit: " frames")
        try FlagRange.check(periods, "--periods", in: 2...64)
        _ = try effectChain()
        _ = try parsedChannelMap()
    }

    private func effectChain() throws -> EffectChainSpec? {
        guard let fx else { return nil }
        do {
            return try EffectChainSpec(parsing: fx)
        } catch {
            throw ValidationError("--fx: \(error)")
        }
    }

    private func parsedChannelMap() throws -> ChannelMap? {
        guard let channelMap else { return nil }
        do {
            return try ChannelMap(parsing: channelMap)
        } catch {
            throw ValidationError("--channel-map: \(error)")
        }
    }

    func run() throws {
        if batch.isRequested { runBatch() }
        let sequence = readSong()
        warnAboutNotesTransposedAway(in: sequence)
        if route == .alsa {
            return try playThroughSequencer(sequence)
        }
        if !ports.isEmpty {
            return try playToPorts(sequence)
        }
        if let networkConnect {
            playToNetwork(sequence, at: networkConnect)
        }
        let fontPaths = SoundFontLocator.paths(given: soundFonts)
        let interruption = Interruption()
        guard let output else {
            try play(sequence, fontPaths: fontPaths, interruption: interruption)
            return
        }
        let renderer: SongRenderer
        do {
            renderer = try SongRenderer(sequence: sequence, soundFontPaths: fontPaths, options: renderOptions(for: sequence))
        } catch let error as RenderError {
            fail(error)
        }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: output, format: format, sampleFormat: bitDepth?.sampleFormat,
                                         sampleRate: sampleRate, channelCount: 2, protecting: [song] + fontPaths)
        } catch {
            fail(.audioFile(error))
        }
        let progress = ProgressBar(expectedFrames: renderer.maximumFrames, sampleRate: sampleRate)
        let frames: Int64?
        do {
            frames = try renderer.render(to: writer, isCancelled: { interruption.isRequested }) { progress.update(frames: $0) }
        } catch {
            fail(error)
        }
        guard let frames else { fail("interrupted; \(output) was not written", .interrupted) }
        progress.finish(frames: frames)
    }

    /// Plays to the sound device (`--device`), the graph built as for `-o` on the device's format.
    private func play(_ sequence: MusicSequence, fontPaths: [String], interruption: Interruption) throws {
        let playback = realtimePlayback
        guard let songPlayback = try openSongPlayback(sequence, fontPaths: fontPaths, noSoundCard: { reason in
            fail("no sound card to play to (\(reason)); render to a file instead: -o song.wav", .inputOutput)
        }) else { return }
        let statusLine = StatusLine(player: songPlayback.renderer.player, settings: songPlayback.renderer.options.playback)
        let outcome: RealtimePlayback.Outcome
        do {
            outcome = try playback.run(songPlayback, statusLine: statusLine, interruption: interruption)
        } catch {
            fail("cannot play to \(device): \(error)", .inputOutput)
        }
        switch outcome {
        case .finished, .quit: return
        case .interrupted: Seqplay.exit(withError: ExitCode.interrupted)
        case .deviceFailed(let error): fail("playback to \(device) ended: \(error)", .inputOutput)
        }
    }

    /// The sound device (`--device`) as the flags set it up.
    private var realtimePlayback: RealtimePlayback {
        RealtimePlayback(device: device, periodFrames: period, periodCount: periods, verbose: verbose)
    }

    /// The song's playback on the sound device (`--device`), the graph built as for `-o` on the device's
    /// format; nil, after calling `noSoundCard` with the reason, when the machine has no sound card.
    func openSongPlayback(_ sequence: MusicSequence, fontPaths: [String], noSoundCard: (String) -> Void) throws -> SongPlayback? {
        var options = try renderOptions(for: sequence)
        if let map = try parsedChannelMap() {
            options.channelMap = map
            options.outputChannelCount = max(2, map.requiredChannelCount)
        }
        let output: RealtimeOutput
        do {
            output = try realtimePlayback.openOutput(options: options)
        } catch {
            if case .device(let deviceError) = error, deviceError.kind == .noDevice,
               case .noSoundCard(let reason) = deviceError.underlying as? ALSAError {
                noSoundCard(reason)
                return nil
            }
            fail("cannot play to \(device): \(error)", .inputOutput)
        }
        options.sampleRate = output.sampleRate
        options.blockFrames = output.periodFrames
        options.metersLevel = true
        do {
            return try SongPlayback(renderer: SongRenderer(sequence: sequence, soundFontPaths: fontPaths, options: options),
                                    output: output)
        } catch let error as RenderError {
            fail(error)
        } catch {
            fail("\(error)", .generic)
        }
    }

    func readSong() -> MusicSequence {
        let result = CommandLineOutput.readMIDIFile(song, strict: strict)
        if !result.warnings.isEmpty {
            let count = result.warnings.count
            warn("\(song): repaired \(count) problem\(count == 1 ? "" : "s") (see `seqplay info \(song)`; --strict refuses such files)")
        }
        return result.sequence
    }

    /// Says once how many notes `--transpose` moves outside 0...127 (they are not played).
    private func warnAboutNotesTransposedAway(in sequence: MusicSequence) {
        guard transpose != 0 else { return }
        let dropped = sequence.tracks.reduce(0) { count, track in
            count + track.events.filter { timed in
                guard case .midi(.noteOn(let channel, let note, let velocity)) = timed.event, channel != 9, velocity > 0 else { return false }
                return !(0...127).contains(Int(note) + transpose)
            }.count
        }
        if dropped > 0 { warn("--transpose \(transpose) moves \(dropped) note\(dropped == 1 ? "" : "s") outside 0...127; they are not played") }
    }

    func renderOptions(for sequence: MusicSequence) throws -> RenderOptions {
        var options = RenderOptions()
        options.effects = try effectChain()
        options.sampleRate = sampleRate
        options.gain = gain
        options.reverbEnabled = !noReverb
        options.chorusEnabled = !noChorus
        options.playback = PlaybackSettings(transpose: transpose, rate: rate, start: start?.position, end: end?.position)
        if let loop {
            let endTick = TempoMap(sequence: sequence.concatenatingPatterns()).endTick
            options.playback.loop = LoopRegion(from: loopFrom?.position ?? start?.position ?? .tick(0),
                                               to: loopTo?.position ?? end?.position ?? .tick(endTick), count: loop)
        }
        if let tail { options.tail = .fixed(seconds: tail) }
        options.mutedTracks = Set(mute)
        options.soloedTracks = Set(solo)
        options.mutedChannels = Set(muteChannel.map { $0 - 1 })
        options.soloedChannels = Set(soloChannel.map { $0 - 1 })
        return options
    }

    /// Reports `error` with the exit status its kind has.
    func fail(_ error: RenderError) -> Never {
        switch error {
        case .soundFont(let fontError):
            if case .unreadable = fontError.problem { fail(error.description, .inputOutput) }
            fail(error.description, .badSoundFont)
        case .playback(.tooLong): fail("\(song): \(error)", .badMIDIFile)
        case .playback, .noSuchTrack, .noSuchChannel, .unsupportedSampleRate, .invalidTail:
            fail(error.description, .validationFailure)
        case .audioFile(let fileError):
            switch fileError.problem {
            case .unknownExtension, .unsupportedSampleFormat, .streamMustBeWAV, .unsupportedSettings:
                fail(error.description, .validationFailure)
            default:
                fail(error.description, .inputOutput)
            }
        case .channelMap: fail(error.description, .validationFailure)
        case .synthesizer, .engine, .varispeed: fail(error.description, .generic)
        }
    }

    private func fail(_ message: String, _ status: ExitCode) -> Never {
        CommandLineOutput.fail(message, status)
    }

    private func warn(_ message: String) {
        CommandLineOutput.note(message)
    }
}
