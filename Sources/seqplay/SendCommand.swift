import SeqplaySupport
import ALSA
import ArgumentParser
import Foundation
import Sessions

/// `seqplay send SONG --port 14:0`: plays a MIDI file to ALSA sequencer ports (what aplaymidi does),
/// timed by the exact tempo map on a kernel queue, optionally with MIDI clock. Ctrl-C stops it and
/// sends All Notes Off to every port. The same as `seqplay SONG --port PORT --no-audio`.
struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Play a MIDI file to ALSA sequencer ports.",
        discussion: "Several ports: repeat --port or separate them with commas; SMF port meta events (0x21) pick among them, as in aplaymidi."
    )

    @Argument(help: "The Standard MIDI File to play.")
    var file: String

    @Option(name: [.short, .long], help: "Destination port(s): 14:0, 'Midi Through:0', a client name.")
    var port: [String]

    @Flag(help: "Also send MIDI clock (24 per quarter note) with Song Position, Start and Stop.")
    var clock = false

    func run() throws {
        let sequence = try CommandLineOutput.readMIDIFile(file).sequence
        let interruption = Interruption()
        try CommandFailure.mapping(file: file) {
            let client = try SequencerCommandSupport.openClient()
            let ports = try SequencerCommandSupport.resolve(port, on: client)
            let session = try SongSession(sequence: sequence, ports: SongPorts(client: client, ports: ports, midiClock: clock))
            let finished = try interruption.run(stopping: session.stop, session.play)
            if !finished { throw CommandFailure(nil, .interrupted) }
        }
    }
}
