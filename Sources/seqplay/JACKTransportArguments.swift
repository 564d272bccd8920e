import ArgumentParser
import Sessions

extension JACKTransportMode: ExpressibleByArgument {}

/// `--jack-transport follow|lead`: a song played through JACK moves with the JACK transport.
struct JACKTransportArguments: ParsableArguments {
    @Option(help: ArgumentHelp("With --audio-driver jack: 'follow' plays, stops and seeks the song with the JACK transport (a DAW's play button and playhead; transport frame 0 is the song's start); 'lead' also makes the song the timebase master (bar:beat:tick, signature and tempo from its tempo map) and starts the transport. Runs until q or Ctrl-C ('lead': until the song ends).", valueName: "follow|lead"))
    var jackTransport: JACKTransportMode?

    /// The transport needs the JACK driver, real-time song playback to the sampler only, and output
    /// frames that are player samples (no varispeed).
    func validate(usesJACK: Bool, rendersToFile: Bool, hasVarispeed: Bool, otherDestination: String?) throws {
        guard jackTransport != nil else { return }
        if !usesJACK { throw ValidationError("--jack-transport needs --audio-driver jack.") }
        if let otherDestination { throw ValidationError("--jack-transport plays the sampler alone; it cannot be combined with \(otherDestination).") }
        if rendersToFile { throw ValidationError("--jack-transport plays in real time; it cannot be combined with -o.") }
        if hasVarispeed { throw ValidationError("--jack-transport cannot follow a song through varispeed (--fx varispeed).") }
    }
}
