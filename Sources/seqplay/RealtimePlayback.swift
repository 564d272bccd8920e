import AudioOutput
import FluidSynth
import ArgumentParser
import Foundation
import MIDIFile
import Rendering

/// `seqplay song.mid` without `-o`: plays to a sound device in real time, with a status line and
/// keys (space pause/resume, ←/→ seek ±5 s, q quit) when on a terminal. `SongPlayback` does the work.
extension RenderCommand {
    func playToDevice(_ sequence: MusicSequence) throws {
        var options = try device.mapped(renderOptions(for: sequence))
        let output = openPlaybackOutput(&options)
        let playback = try SongPlayback(sequence: sequence, soundFontPaths: sound.fontPaths, options: options, output: output)
        let interruption = Interruption()
        do {
            try playback.start()
        } catch {
            CommandLineOutput.fail("cannot play to \(outputName): \(error)", .inputOutput)
        }
        if device.verbose, let scheduling = output.scheduling {
            CommandLineOutput.note("\(outputName): \(output.sampleRate) Hz, \(output.channelCount) ch, period \(output.periodFrames) frames; \(scheduling)")
        }
        let quit = runTransport(playback, interruption: interruption)
        if quit || interruption.isRequested { playback.allNotesOff() }
        // Quitting drops what is buffered; the end of the song and Ctrl-C play it out.
        let end = playback.stop(draining: !quit)
        FluidSynthLog.forwardPendingMessages()
        if case .failed(let error) = end { CommandLineOutput.fail("playback to \(outputName) ended: \(error)", .inputOutput) }
        if device.verbose { CommandLineOutput.note("xruns: \(output.xrunCount)") }
        if interruption.isRequested { throw ExitCode.interrupted }
    }

    /// Shows the status line and acts on keys (pause, seek) until the song ends, q (returns true) or a signal.
    private func runTransport(_ playback: SongPlayback, interruption: Interruption) -> Bool {
        let keys = PlaybackKeys(togglePause: { playback.isPaused ? playback.resume() : playback.pause() },
                                seek: { playback.seek(bySeconds: $0) }, isPaused: { playback.isPaused },
                                position: { playback.positionSeconds })
        return runKeys(playback, keys, interruption: interruption) { playback.isFinished }
    }
}
