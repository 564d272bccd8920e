import SeqplaySupport
import ALSA
import ArgumentParser
import Foundation
import MIDIFile
import Sessions

/// `seqplay SONG.mid --route alsa`: the song to its sampler through the sequencer (`SequencerRoutedSong`):
/// from client "seqplay", port "song" to the input port of client "seqplay sampler"; `--port`s and
/// any program subscribing to the song's port (aseqdump -p) get the same stream (`PlaybackMode.sequencerRoute`).
extension RealtimeSong {
    func playThroughSequencer(_ sequence: MusicSequence, destinations: DestinationArguments) throws {
        let samplerClient = try SequencerCommandSupport.openClient(name: "seqplay sampler")
        let songClient = try SequencerCommandSupport.openClient()
        let options = try device.mapped(sound.renderOptions(for: sequence))
        let output = try device.openSoundCard(options: options)
        let listeners = try SequencerCommandSupport.resolve(destinations.ports, on: songClient)
        let song = try SequencerRoutedSong(sequence: sequence, song: options.song,
                                           sampler: .init(soundFontPaths: sound.fontPaths(), output: output, options: options),
                                           songClient: songClient, samplerClient: samplerClient, listeners: listeners,
                                           midiClock: destinations.clock)
        if device.verbose, let ports = song.session.ports {
            CommandLineOutput.note("route alsa: \(ports.sourceAddress) → sampler \(song.host.ports[0].address), look-ahead \(Int(song.lookAhead * 1000)) ms")
        }
        let interruption = Interruption()
        let finished = try interruption.run(stopping: song.stop, song.play)
        if song.lateEventCount > 0 {
            CommandLineOutput.note("\(song.lateEventCount) events reached the sampler late (the latest \(Int((song.latestLateness * 1000).rounded())) ms after its time)")
        }
        if device.verbose { CommandLineOutput.note("xruns: \(song.playback.output.xrunCount)") }
        if !finished { throw CommandFailure(nil, .interrupted) }
    }
}
