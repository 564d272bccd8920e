import ALSA
import ALSAAudio
import ArgumentParser
import Atomics
import AudioOutput
import Foundation
import MIDIFile
import NetworkMIDI
import Rendering
import SequencerPlayback
import RealtimeSupport

/// `seqplay SONG.mid --port 14:0 [--clock]`: plays the song to ALSA sequencer ports on a kernel queue,
/// as `seqplay send` does, and through the sampler to the sound card in step with them (unless
/// `--no-audio` or there is no sound card).
///
/// In step: the sampler's output starts when song time 0 is one output latency away on the queue
/// (the device buffer, period × periods / rate), so the sampler's first sample and the ports' first
/// event come out together. What remains is how long the kernel takes to pass an event on and the
/// device's own delay beyond its buffer (DAC, USB), which no program can see; when the buffer holds
/// more than `SequencerSongPlayer.leadNanoseconds` (100 ms), the ports lead by the difference.
extension RenderCommand {
    /// Refuses the flags the ports cannot follow: they get the file as it is, from the start.
    func validatePorts() throws {
        if clock && ports.isEmpty && route == .direct { throw ValidationError("--clock needs --port.") }
        guard !ports.isEmpty || route == .alsa else { return }
        let flag = route == .alsa ? "--route alsa" : "--port"
        if output != nil { throw ValidationError("\(flag) plays in real time; it cannot be combined with -o.") }
        if networkConnect != nil { throw ValidationError("\(flag) and --network-connect cannot be combined.") }
        if route == .alsa && noAudio { throw ValidationError("--route alsa plays the sampler; it cannot be combined with --no-audio.") }
        let unsupported = [(start != nil, "--start"), (loop != nil, "--loop"), (rate != 1, "--rate"), (transpose != 0, "--transpose"),
                           (!mute.isEmpty || !solo.isEmpty || !muteChannel.isEmpty || !soloChannel.isEmpty, "--mute/--solo")]
            .filter(\.0).map(\.1)
        if !unsupported.isEmpty {
            throw ValidationError("\(flag) plays the song as the file has it, from the start (--end applies); it cannot be combined with \(unsupported.joined(separator: ", ")).")
        }
    }

    func playToPorts(_ sequence: MusicSequence) throws {
        let endTick = end.map { $0.position.tick(in: TempoMap(sequence: sequence.concatenatingPatterns())) }
        let ports = try SongToPorts(sequence: sequence, file: song, ports: self.ports, clock: clock, endTick: endTick)
        let sampler = noAudio ? nil : try openSongPlayback(sequence, fontPaths: SoundFontLocator.paths(given: soundFonts)) {
            CommandLineOutput.note("no sound card (\($0)): playing to the ports only")
        }
        guard let sampler else { return try ports.playUntilInterrupted() }

        let interruption = Interruption()
        Thread.detachNewThread { [player = ports.player] in
            if interruption.wait() != nil { player.stop() }
        }
        let samplerStarted = ManagedAtomic(false)
        let finished = try ports.play {
            let songStart = MonotonicClock.now() + SequencerSongPlayer.leadNanoseconds
            let startAt = songStart - min(SequencerSongPlayer.leadNanoseconds, Self.outputLatencyNanoseconds(sampler.output))
            Thread.detachNewThread {
                waitUntil(startAt)
                do {
                    try sampler.start()
                    samplerStarted.store(true, ordering: .releasing)
                } catch {
                    CommandLineOutput.note("cannot play to \(device): \(error); playing to the ports only")
                }
            }
        }
        while finished && samplerStarted.load(ordering: .acquiring) && !interruption.isRequested
                && !sampler.isFinished && !sampler.hasEnded {
            usleep(10_000)
        }
        if (!finished || interruption.isRequested) && samplerStarted.load(ordering: .acquiring) { sampler.allNotesOff() }
        if case .failed(let error) = sampler.stop(draining: true) {
            CommandLineOutput.fail("playback to \(device) ended: \(error)", .inputOutput)
        }
        interruption.finish()
        if !finished || interruption.isRequested { throw ExitCode.interrupted }
    }

    /// How long a sample written now takes to be heard: the device buffer (0 for the null device).
    private static func outputLatencyNanoseconds(_ output: RealtimeOutput) -> UInt64 {
        UInt64(output.driver.outputLatencyFrames) * 1_000_000_000 / UInt64(output.sampleRate)
    }
}
