import ArgumentParser
import AudioFiles
import Foundation
import MIDIFile
import Player
import Rendering

/// `seqplay SONG.mid -o SONG.wav`: renders a MIDI file through a SoundFont to an audio file (the
/// default command). Parses the flags, finds the SoundFont, and reports; `SongRenderer` does the work.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a MIDI file through a SoundFont to an audio file (the default command).",
        discussion: """
        Examples:
          seqplay song.mid -o song.wav            (default SoundFont)
          seqplay song.mid --sf2 piano.sf2 -o song.flac
          seqplay song.mid -o song.wav --bit-depth 24 --sample-rate 48000
          seqplay song.mid -o - | sox -t wav - -d     (stream WAV to a player)
          seqplay song.mid -o solo.wav --solo 2 --transpose -2 --rate 0.8
          seqplay song.mid -o verse.wav --start 17:1 --end 33:1 --loop 2
          seqplay song.mid --network-connect 127.0.0.1:5004   (play to `seqplay serve --network`)

        Positions (--start, --end, --loop-from, --loop-to) are seconds
        (42, 12.5s) or bar:beat[:tick] (17:1, 9:3:240). Track numbers are
        the ones `seqplay info` lists (from 0); channels are 1 to 16
        (drums are usually on 10).

        Without --sf2 the SoundFont is $SEQPLAY_SOUNDFONT, else Debian's
        /usr/share/sounds/sf2/default-GM.sf2, else the seqplay-gm.sf2 that
        ships with seqplay.

        Exit status: 0 done, 1 other failure, 3 bad MIDI file, 4 bad
        SoundFont, 5 a file cannot be read or written (or no sound card),
        7 the network peer did not answer and clock-sync within 15 s,
        8 the network address cannot be used, 64 bad command line,
        130 interrupted (Ctrl-C) while playing to the network.
        """
    )

    @Argument(help: "The MIDI file (.mid) to play.")
    var song: String

    @Option(name: .customLong("sf2"), help: ArgumentHelp("A SoundFont (.sf2/.sf3) to play with; repeat to layer fonts (later ones win).", valueName: "file"))
    var soundFonts: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Write the audio to this file instead of playing it; '-' streams WAV to standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("File format, if not the one the extension names.", valueName: "wav|aiff|flac|ogg"))
    var format: AudioFileFormat?

    @Option(help: ArgumentHelp("Sample format: 16, 24 or 32-bit integer, or 32-bit float (default 16; Ogg has none).", valueName: "16|24|32|float"))
    var bitDepth: BitDepthArgument?

    @Option(name: [.customShort("r"), .long], help: ArgumentHelp("Sample rate in Hz (8000 to 96000).", valueName: "Hz"))
    var sampleRate = 44_100

    @Option(name: [.short, .long], help: ArgumentHelp("Master volume of the synthesizer (FluidSynth's default 0.2; 0.5 is louder, may clip).", valueName: "gain"))
    var gain: Float = 0.2

    @Flag(help: "Turn the SoundFont's reverb off.")
    var noReverb = false

    @Flag(help: "Turn the SoundFont's chorus off.")
    var noChorus = false

    @Option(name: [.short, .long], help: ArgumentHelp("Shift every note by this many semitones (drums on channel 10 stay put).", valueName: "semitones"))
    var transpose = 0

    @Option(help: ArgumentHelp("Tempo factor: 2 plays twice as fast, 0.5 at half speed (pitch unchanged).", valueName: "factor"))
    var rate = 1.0

    @Option(help: ArgumentHelp("Start playing here (controllers and instruments set before it still apply).", valueName: "position"))
    var start: PositionArgument?

    @Option(help: ArgumentHelp("Stop playing here.", valueName: "position"))
    var end: PositionArgument?

    @Option(help: ArgumentHelp("Play the song (or the --loop-from/--loop-to region) this many times in all.", valueName: "count"))
    var loop: Int?

    @Option(help: ArgumentHelp("Start of the region --loop repeats (default: --start).", valueName: "position"))
    var loopFrom: PositionArgument?

    @Option(help: ArgumentHelp("End of the region --loop repeats (default: --end).", valueName: "position"))
    var loopTo: PositionArgument?

    @Option(help: ArgumentHelp("Silence a track; repeat for more.", valueName: "track"))
    var mute: [Int] = []

    @Option(help: ArgumentHelp("Play only this track (and any other soloed ones); repeat for more.", valueName: "track"))
    var solo: [Int] = []

    @Option(help: ArgumentHelp("Silence a MIDI channel (1-16); repeat for more.", valueName: "channel"))
    var muteChannel: [Int] = []

    @Option(help: ArgumentHelp("Play only this MIDI channel (1-16); repeat for more.", valueName: "channel"))
    var soloChannel: [Int] = []

    @Option(help: ArgumentHelp("Seconds of audio after the last event (default: until silent, at most 3).", valueName: "seconds"))
    var tail: Double?

    @Flag(help: "Refuse a MIDI file that needs repair instead of repairing it.")
    var strict = false

    @Option(help: ArgumentHelp("Play the song in real time to the network MIDI session at this address (e.g. `seqplay serve --network` or a Mac's session).", valueName: "host:port"))
    var networkConnect: String?

    @Flag(help: "With --network-connect: do not also play to the sound card.")
    var noAudio = false

    @OptionGroup(title: "Network MIDI (with --network-connect)")
    var networkOptions: NetworkArguments

    func validate() throws {
        if let loop, loop < 1 { throw ValidationError("--loop needs a count of 1 or more (1 plays once).") }
        if (loopFrom != nil || loopTo != nil) && loop == nil { throw ValidationError("--loop-from/--loop-to need --loop COUNT.") }
        if networkConnect != nil && output != nil {
            throw ValidationError("--network-connect plays in real time; it cannot be combined with -o.")
        }
        if let tail, !(tail >= 0) { throw ValidationError("--tail needs 0 seconds or more.") }
        if !(gain >= 0 && gain <= 10) { throw ValidationError("--gain must be between 0 and 10.") }
        for channel in muteChannel + soloChannel where !(1...16).contains(channel) {
            throw ValidationError("MIDI channels are 1 to 16, not \(channel).")
        }
    }

    func run() throws {
        let sequence = try readSong()
        if let networkConnect {
            playToNetwork(sequence, at: networkConnect)
        }
        let fontPaths = SoundFontLocator.paths(given: soundFonts)
        guard let output else {
            fail("playback to the sound card is not available yet; render to a file instead, e.g. -o song.wav", .inputOutput)
        }
        let renderer: SongRenderer
        do {
            renderer = try SongRenderer(sequence: sequence, soundFontPaths: fontPaths, options: renderOptions(for: sequence))
        } catch {
            fail(error)
        }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: output, format: format, sampleFormat: bitDepth?.sampleFormat,
                                         sampleRate: sampleRate, channelCount: 2)
        } catch {
            fail(.audioFile(error))
        }
        let progress = ProgressBar(expectedFrames: renderer.maximumFrames, sampleRate: sampleRate)
        let frames: Int64
        do {
            frames = try renderer.render(to: writer) { progress.update(frames: $0) }
        } catch {
            fail(error)
        }
        progress.finish(frames: frames)
    }

    func readSong() throws -> MusicSequence {
        guard FileManager.default.isReadableFile(atPath: song) else {
            fail("\(song): no such file, or it cannot be read", .inputOutput)
        }
        do {
            let result = try MIDIFileReader.read(contentsOf: song, mode: strict ? .strict : .lenient)
            if !result.warnings.isEmpty {
                let count = result.warnings.count
                warn("\(song): repaired \(count) problem\(count == 1 ? "" : "s") (see `seqplay info \(song)`; --strict refuses such files)")
            }
            return result.sequence
        } catch {
            if case .unreadable = error.reason { fail("\(error)", .inputOutput) }
            fail("\(error)", .badMIDIFile)
        }
    }

    func renderOptions(for sequence: MusicSequence) -> RenderOptions {
        var options = RenderOptions()
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
        case .soundFont: fail(error.description, .badSoundFont)
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
        case .synthesizer, .engine: fail(error.description, .generic)
        }
    }

    private func fail(_ message: String, _ status: ExitCode) -> Never {
        CommandLineOutput.fail(message, status)
    }

    private func warn(_ message: String) {
        CommandLineOutput.note(message)
    }
}
