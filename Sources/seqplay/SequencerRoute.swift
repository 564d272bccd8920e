import ALSA
import ArgumentParser
import Atomics
import Foundation
import LiveSampler
import MIDIFile
import Rendering

/// How `seqplay SONG` gets the song to its own sampler.
enum SongRoute: String, ExpressibleByArgument, CaseIterable {
    /// In process: the `MusicPlayer` drives the sampler inside the render callback (block-exact).
    case direct
    /// Through the ALSA sequencer: seqplay's output port → the sampler's input port, so other
    /// programs can watch or tap the stream (kernel-timestamp timing, within a few ms).
    case alsa
}

/// `seqplay SONG.mid --route alsa`: plays the song on a kernel queue from seqplay's output port
/// (client "seqplay", port "song") to a `LiveSamplerHost` input port (client "seqplay sampler"),
/// which is its only destination: the events go to the port's subscribers, so any `--port`s and any
/// program subscribing to it (aseqdump -p) get the same stream. The host plays each event at its
/// kernel timestamp plus `routeLookAheadSeconds`, through the same sampler graph (fonts, gain,
/// reverb, --fx, channel map) as the direct route.
extension RenderCommand {
    /// How far behind its kernel timestamp the sampler plays an event: more than a period of the
    /// default device plus the input thread's wake-up, also under load.
    static let routeLookAheadSeconds = 0.05

    func playThroughSequencer(_ sequence: MusicSequence) throws {
        let hostClient = try SequencerCommandSupport.openClient(name: "seqplay sampler")
        guard let playback = try openSongPlayback(sequence, fontPaths: SoundFontLocator.paths(given: soundFonts), noSoundCard: { reason in
            CommandLineOutput.fail("no sound card to play to (\(reason)); render to a file instead: -o song.wav", .inputOutput)
        }) else { return }
        let output = playback.output
        let lookAheadFrames = Int(Self.routeLookAheadSeconds * Double(output.sampleRate))
        let host = try SequencerCommandSupport.run { () throws(SequencerError) in
            try LiveSamplerHost(client: hostClient, sampler: playback.renderer.sampler, delivery: .timestamped(lookAheadFrames: lookAheadFrames),
                                sampleRate: output.sampleRate, periodFrames: output.periodFrames)
        }
        let endTick = end.map { $0.position.tick(in: TempoMap(sequence: sequence.concatenatingPatterns())) }
        let song = try SongToPorts(sequence: sequence, file: self.song, ports: ["\(host.ports[0].address)"] + ports,
                                   clock: clock, endTick: endTick, tapped: true)
        if verbose {
            CommandLineOutput.note("route alsa: \(song.player.sourceAddress) → sampler \(host.ports[0].address), look-ahead \(Int(Self.routeLookAheadSeconds * 1000)) ms")
        }
        do {
            try playback.start()
        } catch {
            CommandLineOutput.fail("cannot play to \(device): \(error)", .inputOutput)
        }
        try SequencerCommandSupport.run { () throws(SequencerError) in try host.start() }

        let interruption = Interruption()
        let songEnded = ManagedAtomic(false)
        let watcherDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [player = song.player] in
            // Ctrl-C stops the song; until it ends, the host's timestamp clock is recalibrated every second.
            while !songEnded.load(ordering: .acquiring) {
                if interruption.wait(timeout: 1) != nil { player.stop(); break }
                try? host.calibrate()
            }
            watcherDone.signal()
        }
        let finished = try song.play()
        songEnded.store(true, ordering: .releasing)
        interruption.finish()
        watcherDone.wait()
        // The last events reach the sampler a look-ahead after their timestamps; then the tail plays out.
        if finished { usleep(UInt32(Self.routeLookAheadSeconds * 1_000_000)) }
        while finished && !interruption.isRequested && !playback.isFinished && !playback.hasEnded {
            usleep(10_000)
        }
        host.stop()
        if !finished || interruption.isRequested { playback.allNotesOff() }
        if case .failed(let error) = playback.stop(draining: true) {
            CommandLineOutput.fail("playback to \(device) ended: \(error)", .inputOutput)
        }
        interruption.finish()
        if host.lateEventCount > 0 { CommandLineOutput.note("\(host.lateEventCount) events reached the sampler late") }
        if !finished || interruption.isRequested { throw ExitCode.interrupted }
    }
}
