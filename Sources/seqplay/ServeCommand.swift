import ArgumentParser
import Sessions

/// `seqplay serve`: a sampler host for live MIDI from network MIDI peers (`--network`) and/or ALSA
/// input ports others connect to (`--ports N`), all in one `LiveSamplerSession`: to the sound card,
/// or with `-o FILE` on a clock, recording what it plays.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Play MIDI arriving live (from network MIDI peers and/or at ALSA ports) through a SoundFont.",
        discussion: """
        Examples:
          seqplay serve --network                       (listen on 127.0.0.1:5004, play to the sound card)
          seqplay serve --network -o heard.wav --duration 30
          seqplay serve --network --listen 0.0.0.0:5004 --network-allow anyone
          seqplay serve --ports 2 --sf2 font.sf2        (ALSA ports in-1, in-2)
          seqplay serve --network --ports 2             (both: network peers and ports in-1, in-2)
          seqplay serve --ports 1 --timestamped --look-ahead 10 --device hw:1

        Runs until Ctrl-C, SIGTERM or --duration; the recording is then completed.
        A peer that leaves (BY or no clock sync) has its notes released.

        --ports N opens input ports 'in-1'...'in-N' of the client 'seqplay serve'
        that any program can connect to (aconnect, seqplay connect); it connects
        to nothing by itself. Each port plays a sampler of its own: 16 channels
        per port; the network peers play one more. --timestamped and --look-ahead
        apply to the ports; network events play at their sender's timestamp
        (see --network-latency). A source disconnected or gone has its notes released.

        Where there is an ALSA sequencer, each connected peer is also a port of the
        'seqplay serve' client (with --ports: 'seqplay serve network'; see aconnect -l),
        named after the peer: what the peer sends comes out of it, and what ALSA
        programs send to it goes to the network session, that is to every connected
        peer. --no-alsa-ports turns this off.

        Exit status: 0 done, 4 bad SoundFont, 5 no sound card (use -o) or a
        file cannot be written, 6 no ALSA sequencer (--ports), 8 the network
        address cannot be used, 64 bad command line.
        """
    )

    @Flag(help: "Play what network MIDI peers (RTP-MIDI/AppleMIDI) send.")
    var network = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Open this many ALSA sequencer input ports (in-1...in-N), 16 channels each.", valueName: "N"))
    var ports: Int?

    @OptionGroup var networkOptions: NetworkArguments

    @OptionGroup var samplerOptions: LiveHostOptions

    @Flag(name: .customLong("no-alsa-ports"), help: "Do not show network peers as ALSA sequencer ports.")
    var noALSAPorts = false

    func validate() throws {
        if !network && ports == nil && !samplerOptions.audio.usesJACK {
            throw ValidationError("serve needs an input: --network, --ports N, or both (with --audio-driver jack also midi_in).")
        }
        try FlagRange.check(ports, "--ports", in: 1...16)
    }

    func run() throws {
        var configuration = try samplerOptions.configuration(clientName: "seqplay serve",
                                                         portNames: (0..<(ports ?? 0)).map { "in-\($0 + 1)" })
        if network {
            configuration.network = try CommandFailure.describing(.networkUnavailable) { try networkOptions.configuration(name: "seqplay serve") }
            configuration.networkPeersAsALSAPorts = !noALSAPorts
        }
        try LiveSessionRunner.run(configuration, duration: samplerOptions.duration,
                                  command: "seqplay serve" + (network ? " --network" : "") + (ports.map { " --ports \($0)" } ?? ""),
                                  control: samplerOptions.control)
    }
}
