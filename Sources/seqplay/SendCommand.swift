import ALSA
import ArgumentParser
import Dispatch
import Foundation
import MIDIFile
import SequencerPlayback

/// `seqplay send SONG --port 14:0`: plays a MIDI file to ALSA sequencer ports (what aplaymidi does),
/// timed by the exact tempo map on a kernel queue, optionally with MIDI clock. Ctrl-C stops it and
/// sends All Notes Off to every port.
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
        let sequence: MusicSequence
        do {
            sequence = try MIDIFileReader.read(contentsOf: file).sequence
        } catch {
            FileHandle.standardError.write(Data("seqplay: \(error)\n".utf8))
            if case .unreadable = error.reason { throw ExitCode.inputOutput }
            throw ExitCode.badMIDIFile
        }
        let client = try SequencerCommandSupport.openClient()
        let destinations = try SequencerCommandSupport.run { () throws(SequencerError) in
            try port.flatMap { $0.split(separator: ",").map(String.init) }
                .map { (text) throws(SequencerError) in try client.resolve(text) }
        }
        let schedule = try schedule(of: sequence, to: destinations)
        let player = try SequencerCommandSupport.run { () throws(SequencerError) in
            try SequencerSongPlayer(schedule: schedule, client: client)
        }
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { player.stop() }
        interrupt.resume()
        let finished = try SequencerCommandSupport.run { () throws(SequencerError) in try player.play() }
        interrupt.cancel()
        if !finished { throw ExitCode.interrupted }
    }

    /// The schedule of `sequence`; a song the sequencer cannot play exits with status 3, naming the file.
    private func schedule(of sequence: MusicSequence, to destinations: [PortAddress]) throws -> SequencerSchedule {
        do {
            return try SequencerSchedule(sequence: sequence, destinations: destinations, midiClock: clock)
        } catch {
            FileHandle.standardError.write(Data("seqplay: \(file): \(error)\n".utf8))
            throw ExitCode.badMIDIFile
        }
    }
}
