import ALSA
import ArgumentParser
import Dispatch
import Foundation
import MIDIFile
import SequencerPlayback

/// A song on its way to ALSA sequencer ports, as `seqplay send` and `seqplay SONG --port` play it:
/// the port names resolved, the schedule built from the exact tempo map, the player connected to
/// every destination. Failures exit with the command's status (3: song too long, 6: no sequencer).
struct SongToPorts {
    let player: SequencerSongPlayer

    /// `ports` as given on the command line: each may list several, separated by commas. With
    /// `tapped`, the song goes to the first port through the player port's subscribers: the other
    /// ports, and any program that subscribes (aseqdump), get the same stream.
    init(sequence: MusicSequence, file: String, ports: [String], clock: Bool, endTick: Int64? = nil, tapped: Bool = false) throws {
        let client = try SequencerCommandSupport.openClient()
        let destinations = try SequencerCommandSupport.run { () throws(SequencerError) in
            try ports.flatMap { $0.split(separator: ",").map(String.init) }
                .map { (text) throws(SequencerError) in try client.resolve(text) }
        }
        let schedule: SequencerSchedule
        do {
            schedule = try SequencerSchedule(sequence: sequence, destinations: tapped ? [destinations[0]] : destinations,
                                             midiClock: clock, endTick: endTick)
        } catch {
            CommandLineOutput.writeStandardError(Data("seqplay: \(file): \(error)\n".utf8))
            throw ExitCode.badMIDIFile
        }
        player = try SequencerCommandSupport.run { () throws(SequencerError) in
            let player = try SequencerSongPlayer(schedule: schedule, client: client, sendsToSubscribers: tapped)
            if tapped {
                for listener in destinations.dropFirst() { try client.connect(from: player.sourceAddress, to: listener) }
            }
            return player
        }
    }

    /// Plays to the end; Ctrl-C stops it with all notes off on every port and exits with status 130.
    func playUntilInterrupted() throws {
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { [player] in player.stop() }
        interrupt.resume()
        let finished = try play()
        interrupt.cancel()
        if !finished { throw ExitCode.interrupted }
    }

    /// Plays to the end or until `player.stop()`; returns whether it played to the end.
    /// `queueStarting` runs just before the kernel queue starts (see `SequencerSongPlayer.play`).
    func play(queueStarting: () -> Void = {}) throws -> Bool {
        try SequencerCommandSupport.run { () throws(SequencerError) in try player.play(queueStarting: queueStarting) }
    }
}
