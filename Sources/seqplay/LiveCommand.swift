import ALSA
import ArgumentParser
import Foundation
import Sessions

/// `seqplay live --sf2 piano.sf2`: plays MIDI keyboards through the sampler to the sound card (or
/// with -o, to a file). Connects to every hardware MIDI source and to any that appears later, or only
/// to `--connect NAME` (`LiveSamplerSession` does the work).
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Play MIDI keyboards through a SoundFont sampler to the sound card, with low latency.",
        discussion: """
            Connects to every hardware MIDI source (sound-card drivers: USB keyboards, VirMIDI) now and \
            whenever one appears, or only to the --connect ones. Sustain pedal, pitch bend and program \
            changes act as the keyboard sends them. A source that is disconnected or goes away has its \
            notes released. q, Ctrl+C or SIGTERM end. With -o FILE it plays on the system clock and \
            records to the file instead (no sound card needed). With --audio-driver jack it also plays what \
            arrives at the JACK port midi_in (each event on the frame it was sent at).

            Exit status: 0 done, 4 bad SoundFont, 5 no sound card (use -o) or a file cannot be \
            written, 6 no ALSA sequencer, 64 bad command line.
            """
    )

    @OptionGroup var host: LiveHostOptions

    @Option(name: .customLong("connect"), help: "Connect only to sources whose client or port name starts with this (or 20:0); repeat for several.")
    var sources: [String] = []

    func run() throws {
        // Through JACK, midi_in takes MIDI; the ALSA port too where there is a sequencer.
        let alsaPort = !host.audio.usesJACK || FileManager.default.fileExists(atPath: SequencerClient.devicePath)
        var configuration = try host.configuration(clientName: "seqplay live", portNames: alsaPort ? ["in"] : [])
        configuration.connect = sources.isEmpty ? .hardware : .named(sources)
        try LiveSessionRunner.run(configuration, duration: host.duration, command: "seqplay live", control: host.control)
    }
}
