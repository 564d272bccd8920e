import ALSA
import ArgumentParser

/// Where `seqplay SONG` plays besides (or instead of) the sampler: ALSA ports, a network session.
struct DestinationArguments: ParsableArguments {
    @Option(name: .customLong("port"), help: ArgumentHelp("Play the song to this ALSA sequencer port (14:0, 'Midi Through:0', a client name) on a kernel queue, the sampler in step with it unless --no-audio; repeat or separate with commas (SMF port meta events pick among them, as in aplaymidi).", valueName: "port"))
    var ports: [String] = []

    @Option(name: .customLong("port-for-track"), help: ArgumentHelp("Play one track on a port of its own, e.g. 2=20:0 (track numbers as `seqplay info` lists them); that track then plays there only, not on the sampler, the network or the other --port ports. Repeat for more.", valueName: "track=port"))
    var trackPorts: [TrackPortArgument] = []

    @Flag(help: "With --port or --port-for-track: also send MIDI clock (24 per quarter note) with Song Position, Start/Continue and Stop.")
    var clock = false

    @Flag(help: "With --port, --port-for-track or --network-connect: do not also play to the sound card.")
    var noAudio = false

    @Option(help: ArgumentHelp("How the song reaches the sampler: direct (in process, block-exact) or alsa (through seqplay's sequencer output port to the sampler's input port, so other programs can watch it; exit 6 without a sequencer).", valueName: "direct|alsa"))
    var route: SongRoute = .direct

    @Option(help: ArgumentHelp("Play the song in real time to the network MIDI session at this address (e.g. `seqplay serve --network` or a Mac's session).", valueName: "host:port"))
    var networkConnect: String?

    /// Whether the song goes to sequencer ports (other than through `--route alsa`).
    var hasPorts: Bool { !ports.isEmpty || !trackPorts.isEmpty }

    /// The flags given that play in real time to somewhere besides the sampler, for messages.
    var realtimeFlags: [String] {
        [(networkConnect != nil, "--network-connect"), (hasPorts, "--port"), (route == .alsa, "--route alsa")].filter(\.0).map(\.1)
    }

    /// These destinations play in real time: refuses `-o`.
    func refuseRendering(to output: String?) throws {
        if let first = realtimeFlags.first, output != nil {
            throw ValidationError("\(first) plays in real time; it cannot be combined with -o.")
        }
    }

    func validate() throws {
        if clock && !hasPorts && route == .direct { throw ValidationError("--clock needs --port or --port-for-track.") }
        if route == .alsa {
            if noAudio { throw ValidationError("--route alsa plays the sampler; it cannot be combined with --no-audio.") }
            if networkConnect != nil { throw ValidationError("--route alsa and --network-connect cannot be combined.") }
            if !trackPorts.isEmpty { throw ValidationError("--route alsa sends the whole song through one port; it cannot be combined with --port-for-track.") }
        }
        if noAudio && !hasPorts && networkConnect == nil { throw ValidationError("--no-audio needs --port, --port-for-track or --network-connect.") }
        let tracks = trackPorts.map(\.track)
        if Set(tracks).count != tracks.count { throw ValidationError("--port-for-track gives a track two ports.") }
    }
}

/// `--port-for-track TRACK=PORT`.
struct TrackPortArgument: ExpressibleByArgument {
    let track: Int
    let port: String

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "="), let track = Int(argument[..<equals]), track >= 0 else { return nil }
        self.track = track
        port = String(argument[argument.index(after: equals)...])
        if port.isEmpty { return nil }
    }

    static var defaultValueDescription: String { "track=port" }
}

/// How `seqplay SONG` gets the song to its own sampler.
enum SongRoute: String, ExpressibleByArgument, CaseIterable {
    /// In process: the `MusicPlayer` drives the sampler inside the render callback (block-exact).
    case direct
    /// Through the ALSA sequencer: seqplay's output port → the sampler's input port, so other
    /// programs can watch or tap the stream (kernel-timestamp timing, within a few ms).
    case alsa
}
