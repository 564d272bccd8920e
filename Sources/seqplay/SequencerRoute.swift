import ALSA
import Atomics
import ArgumentParser
import Foundation
import LiveSampler
import MIDIFile
import Rendering
import SongSessions

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
        let options = try device.mapped(renderOptions(for: sequence))
        let output = device.openOutputOrExit(options: options)
        let playback = try SongPlayback(sequence: sequence, soundFontPaths: sound.fontPaths, options: options, output: output)
        // The song reaches the sampler through the host, not from its own player.
        for track in 0..<playback.renderer.player.trackCount { playback.renderer.player.setTrack(track, muted: true) }
        let lookAheadFrames = Int(Self.routeLookAheadSeconds * Double(output.sampleRate))
        let host = try SequencerCommandSupport.run { () throws(SequencerError) in
            try LiveSamplerHost(client: hostClient, sampler: playback.renderer.sampler, delivery: .timestamped(lookAheadFrames: lookAheadFrames),
                                sampleRate: output.sampleRate, periodFrames: output.periodFrames)
        }
        let client = try SequencerCommandSupport.openClient()
        let listeners = try SequencerCommandSupport.run { () throws(SequencerError) in
            try destinations.portNames.map { (name) throws(SequencerError) in try client.resolve(name) }
        }
        let song = try SongSession(sequence: sequence, options: options, ports: SongPorts(
            client: client, ports: [host.ports[0].address], midiClock: destinations.clock, tapped: true, listeners: listeners))
        if device.verbose, let ports = song.ports {
            CommandLineOutput.note("route alsa: \(ports.sourceAddress) → sampler \(host.ports[0].address), look-ahead \(Int(Self.routeLookAheadSeconds * 1000)) ms")
        }
        do {
            try playback.start()
        } catch {
            CommandLineOutput.fail("cannot play to \(device.device): \(error)", .inputOutput)
        }
        try SequencerCommandSupport.run { () throws(SequencerError) in try host.start() }

        let interruption = Interruption()
        let songEnded = ManagedAtomic(false)
        let watcherDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Ctrl-C stops the song; until it ends, the host's timestamp clock is recalibrated every second.
            while !songEnded.load(ordering: .acquiring) {
                if interruption.wait(timeout: 1) != nil { song.stop(); break }
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
            CommandLineOutput.fail("playback to \(device.device) ended: \(error)", .inputOutput)
        }
        interruption.finish()
        if host.lateEventCount > 0 { CommandLineOutput.note("\(host.lateEventCount) events reached the sampler late") }
        if !finished || interruption.isRequested { throw ExitCode.interrupted }
    }
}
