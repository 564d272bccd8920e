import ArgumentParser
import MIDIFile

/// `seqplay SONG.mid`: plays a MIDI file through a SoundFont to the sound card, or with `-o SONG.wav`
/// renders it to an audio file (the default command); with `--port`/`--port-for-track`/`--network-connect`
/// also (or only) to ALSA ports and network sessions. Parses the flags, picks the `PlaybackMode` and runs
/// it; each mode (a file each: a type, or a method of `RealtimeSong` for those playing in real time) takes
/// the option groups it needs, calls the library and prints.
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

    /// How the song sounds: the three groups every mode takes.
    var songSound: SongSound { SongSound(song: song, sampler: sampler, sound: sound) }

    /// How the song sounds and the sound card: what every mode playing in real time takes.
    var realtime: RealtimeSong { RealtimeSong(sound: songSound, device: device) }

    /// The mode the flags ask for.
    var mode: PlaybackMode { PlaybackMode(batch: batch, destinations: destinations, file: file, transport: transport) }

    /// The mode's own rules first (how many songs; what a mode playing in real time refuses), then the
    /// rules between option groups.
    func validate() throws {
        let mode = self.mode
        switch mode {
        case .batch:
            try BatchRender.validate(song: song, file: file, destinations: destinations)
        case .sequencerRoute, .destinations:
            try validateOneSong()
            try destinations.refuseRendering(to: file.output)
        case .file, .jackTransport, .soundCard:
            try validateOneSong()
        }
        try waveform.validate(output: file.output)
        if audio.usesJACK && device.channelMap != nil {
            throw ValidationError("--channel-map is for ALSA devices; with JACK connect the ports instead.")
        }
        if audio.jackMulti && (sound.fx != nil || file.output != nil) {
            throw ValidationError("--jack-multi plays to JACK without --fx or -o.")
        }
        if audio.jackMulti && !sound.instruments.instrument.isEmpty {
            throw ValidationError("--jack-multi gives each SoundFont channel its own pair: not with --instrument.")
        }
        try transport.validate(usesJACK: audio.usesJACK, rendersToFile: file.output != nil || batch.isRequested,
                               hasVarispeed: sound.fx?.contains("varispeed") == true,
                               otherDestination: destinations.realtimeFlags.first)
        try jackMIDI.validate(audio: audio, songs: true)
        if jackMIDI.jackMidiOut && (file.output != nil || !destinations.realtimeFlags.isEmpty) {
            throw ValidationError("--jack-midi-out plays a song to JACK alone: not with -o, --port, --network-connect or --route.")
        }
    }

    /// One song without --output-dir.
    private func validateOneSong() throws {
        if song.songs.count != 1 {
            throw ValidationError(song.songs.isEmpty ? "Missing the MIDI file to play." : "One MIDI file at a time; to render many, add --output-dir DIR.")
        }
    }

    /// Runs the mode: the batch, or the one song read and played (its errors mapped with its name).
    func run() throws {
        let play: (MusicSequence) throws -> Void
        switch mode {
        case .batch:
            return try BatchRender(sound: songSound, batch: batch, encoding: encoding, file: file, threading: threading).run()
        case .sequencerRoute:
            play = { try realtime.playThroughSequencer($0, destinations: destinations) }
        case .destinations:
            play = { try realtime.playToDestinations($0, destinations: destinations, networkOptions: networkOptions) }
        case .file(let path):
            let render = RenderToFile(sound: songSound, encoding: encoding, file: file, waveform: waveform, threading: threading)
            play = { try render.render($0, to: path) }
        case .jackTransport(let transportMode):
            play = { try realtime.playWithJACKTransport($0, audio: audio, mode: transportMode) }
        case .soundCard:
            play = { try realtime.playToSoundCard($0, audio: audio, jackMIDI: jackMIDI) }
        }
        let sequence = try song.read()
        try CommandFailure.mapping(file: song.song) { try play(sequence) }
    }
}
