import ALSA
import ArgumentParser
import AudioGraph
import AudioOutput
import FluidSynth
import Foundation
import LiveSampler
import Sampler

/// `seqplay live --sf2 piano.sf2`: plays MIDI keyboards through the sampler to the sound card. Connects
/// to every hardware MIDI source and to any that appears later, or only to `--connect NAME`.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Play MIDI keyboards through a SoundFont sampler to the sound card, with low latency.",
        discussion: """
            Connects to every hardware MIDI source (sound-card drivers: USB keyboards, VirMIDI) now and \
            whenever one appears, or only to the --connect ones. Sustain pedal, pitch bend and program \
            changes act as the keyboard sends them. A source that is disconnected or goes away has its \
            notes released. q, Ctrl+C or SIGTERM end.
            """
    )

    @OptionGroup var host: LiveHostOptions

    @Option(name: .customLong("connect"), help: "Connect only to sources whose client or port name starts with this (or 20:0); repeat for several.")
    var sources: [String] = []

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    func run() throws {
        let filter: LiveSourceFilter = sources.isEmpty ? .hardware : .named(sources)
        let session = try LiveHostSession(options: host, clientName: "seqplay live", portNames: ["in"])
        for source in filter.sources(seenBy: session.host.client) {
            session.connect(source)
        }
        try session.run(duration: duration) { appeared in
            for address in appeared where filter.accepts(address, seenBy: session.host.client) {
                session.connect(address)
            }
        }
    }
}
