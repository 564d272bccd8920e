import ArgumentParser
import AudioOutput
import MIDIFile
import Rendering

/// `seqplay SONG.mid`: plays a MIDI file through a SoundFont to the sound card, or with `-o SONG.wav`
/// renders it to an audio file (the default command); with `--port`/`--port-for-track`/`--network-connect`
/// also (or only) to ALSA ports and network sessions. Parses the flags and picks the mode; each mode
/// (one file each) calls the library and prints.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Play a MIDI file through a SoundFont, or render it to an audio file (the default command).",
        discussion: RenderCommand.help
    )

    @OptionGroup var song: SongArguments
    @OptionGroup(title: "Many songs (render to a directory)") var batch: BatchArguments
    @OptionGroup(title: "Sound") var sampler: SamplerArguments
    @OptionGroup(title: "Sound") var sound: SoundArguments
    @OptionGroup(title: "Encoding (with -o)") var encoding: EncodingArguments
    @OptionGroup(title: "Rendering to a file") var file: FileArguments
    @OptionGroup(title: "Playing to a sound card") var device: DeviceArguments
    @OptionGroup(title: "MIDI destinations") var destinations: DestinationArguments
    @OptionGroup(title: "Network MIDI (with --network-connect)") var networkOptions: NetworkArguments
    @OptionGroup(title: "Audio driver (playback)") var audio: AudioDriverArguments
    @OptionGroup(title: "JACK transport") var transport: JACKTransportArguments
    @OptionGroup(title: "Audio driver (playback)") var jackMIDI: JACKMIDIArguments
    @OptionGroup var waveform: WaveformOption
    @OptionGroup(title: "Every core") var threading: ThreadsArgument

    func validate() throws {
        try validateSongCount()
        let realtime = [(destinations.networkConnect != nil, "--network-connect"), (destinations.hasPorts, "--port"),
                        (destinations.route == .alsa, "--route alsa")].filter(\.0).map(\.1)
        if let first = realtime.first, file.output != nil {
            throw ValidationError("\(first) plays in real time; it cannot be combined with -o.")
        }
        try waveform.validate(output: file.output)
        if audio.usesJACK && device.channelMap != nil {
            throw ValidationError("--channel-map is for ALSA devices; with JACK connect the ports instead.")
        }
        if audio.jackMulti && (sound.fx != nil || file.output != nil) {
            throw ValidationError("--jack-multi plays to JACK without --fx or -o.")
        }
        try transport.validate(usesJACK: audio.usesJACK, rendersToFile: file.output != nil || batch.isRequested,
                               hasVarispeed: sound.fx?.contains("varispeed") == true, otherDestination: realtime.first)
        try jackMIDI.validate(audio: audio, songs: true)
        if jackMIDI.jackMidiOut && (file.output != nil || !realtime.isEmpty) {
            throw ValidationError("--jack-midi-out plays a song to JACK alone: not with -o, --port, --network-connect or --route.")
        }
    }

    func run() throws {
        if batch.isRequested { return try runBatch() }
        let sequence = try song.read()
        do {
            if destinations.route == .alsa {
                try playThroughSequencer(sequence)
            } else if destinations.hasPorts || destinations.networkConnect != nil {
                try playToDestinations(sequence)
            } else if let output = file.output {
                try render(sequence, to: output)
            } else if let mode = transport.jackTransport {
                try playWithJACKTransport(sequence, mode: mode)
            } else {
                try playToDevice(sequence)
            }
        } catch {
            throw CommandFailure(mapping: error, file: song.song)
        }
    }

    /// The output real-time playback plays to, `options` given the channels it needs: the JACK client with
    /// `--audio-driver jack` (a stereo pair per MIDI channel beside the mix with `--jack-multi`), else the
    /// ALSA device; throws (5) when it cannot be opened.
    func openPlaybackOutput(_ options: inout RenderOptions) throws(CommandFailure) -> RealtimeOutput {
        guard audio.usesJACK else { return try device.openSoundCard(options: options) }
        if audio.jackMulti {
            options.channelOutputs = true
            options.outputChannelCount = audio.jackPortNames.count
        }
        return try audio.openJACKOutput(portNames: audio.jackPortNames)
    }

    /// What messages call the playback output: the ALSA device or the JACK client.
    var outputName: String { audio.outputName(device: device.device) }

    /// The render options of the flags, for `sequence`.
    func renderOptions(for sequence: MusicSequence) throws -> RenderOptions {
        try sound.renderOptions(song: song, sequence: sequence, sampler: sampler.settings())
    }
}
