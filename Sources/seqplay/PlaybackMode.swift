import Sessions

/// What `seqplay SONG` does, chosen from the flags in one place (`RenderCommand.mode`); the first
/// that applies wins. Each mode takes the option groups it needs: a type of its own, or for those that
/// play in real time a method of `RealtimeSong` (the song's sound and the sound card, held once).
enum PlaybackMode: Equatable {
    /// `--output-dir DIR`: many songs rendered to files (`BatchRender`).
    case batch
    /// `--route alsa`: the song to the sampler through the ALSA sequencer (`RealtimeSong.playThroughSequencer`).
    case sequencerRoute
    /// `--port`, `--port-for-track`, `--network-connect`: the song to ALSA ports and/or a network
    /// session, and the sampler (`RealtimeSong.playToDestinations`).
    case destinations
    /// `-o FILE`: the song rendered to an audio file (`RenderToFile`).
    case file(path: String)
    /// `--jack-transport follow|lead`: the song moves with the JACK transport (`RealtimeSong.playWithJACKTransport`).
    case jackTransport(JACKTransportMode)
    /// Neither: the song plays to the sound card or JACK (`RealtimeSong.playToSoundCard`).
    case soundCard

    init(batch: BatchArguments, destinations: DestinationArguments, file: FileArguments, transport: JACKTransportArguments) {
        if batch.isRequested {
            self = .batch
        } else if destinations.route == .alsa {
            self = .sequencerRoute
        } else if destinations.hasPorts || destinations.networkConnect != nil {
            self = .destinations
        } else if let output = file.output {
            self = .file(path: output)
        } else if let mode = transport.jackTransport {
            self = .jackTransport(mode)
        } else {
            self = .soundCard
        }
    }
}
