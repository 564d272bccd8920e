import SeqplaySupport
import AudioGraph
import Sampler
import LV2
import Sessions
import JACK
import ArgumentParser
import Foundation
import MIDIFile
import Rendering

/// `seqplay song.mid` without `-o` (`PlaybackMode.soundCard`): plays to a sound device (or JACK) in real
/// time, with a status line and keys (space pause/resume, ←/→ seek ±5 s, q quit) when on a terminal.
/// `SongPlayback` does the work.
extension RealtimeSong {
    func playToSoundCard(_ sequence: MusicSequence, audio: AudioDriverArguments, jackMIDI: JACKMIDIArguments) throws {
        // Signals are caught before the output opens: JACK's ports appear then, and a SIGTERM right after
        // they do ends the song as one during it does (notes off, exit 130), not with the default action.
        let interruption = Interruption()
        var options = try device.mapped(sound.renderOptions(for: sequence))
        let output = try audio.openPlaybackOutput(device: device, options: &options)
        let outputName = audio.outputName(device: device.device)
        let playback = try SongPlayback(sequence: sequence, soundFontPaths: sound.fontPaths(), options: options, output: output)
        let midiOut = try jackMIDI.songOutput(playback: playback)
        try CommandFailure.describing(.inputOutput, prefix: "cannot play to \(outputName): ") { try playback.start() }
        if device.verbose, let scheduling = output.scheduling {
            CommandLineOutput.note("\(outputName): \(output.sampleRate) Hz, \(output.channelCount) ch, period \(output.periodFrames) frames; \(scheduling)")
        }
        let quit = runTransport(playback, interruption: interruption)
        if quit || interruption.isRequested {
            midiOut?.allNotesOff()  // sent in the cycle the hold below waits for
            playback.allNotesOff()
        }
        // Quitting drops what is buffered; the end of the song and Ctrl-C play it out.
        let end = playback.stop(draining: !quit)
        FluidSynthLog.forwardPendingMessages()
        LV2Log.forwardPendingMessages()
        if case .failed(let error) = end { throw CommandFailure("playback to \(outputName) ended: \(error)", .inputOutput) }
        if device.verbose { CommandLineOutput.note("xruns: \(output.xrunCount)") }
        if let lost = midiOut?.lostEventCount, lost > 0 { CommandLineOutput.note("\(lost) MIDI events did not fit in JACK's midi_out buffer") }
        if interruption.isRequested { throw CommandFailure(nil, .interrupted) }
    }

    /// Shows the status line and acts on keys (pause, seek) until the song ends, q (returns true) or a signal.
    private func runTransport(_ playback: SongPlayback, interruption: Interruption) -> Bool {
        let keys = PlaybackKeys(togglePause: { playback.isPaused ? playback.resume() : playback.pause() },
                                seek: { playback.seek(bySeconds: $0) }, isPaused: { playback.isPaused },
                                position: { playback.positionSeconds })
        return keys.run(playback, interruption: interruption) { playback.isFinished }
    }
}

private extension JACKMIDIArguments {
    /// With --jack-midi-out, the song's MIDI on the JACK client's midi_out beside its audio.
    func songOutput(playback: SongPlayback) throws(CommandFailure) -> JACKSongMIDIOutput? {
        guard jackMidiOut, let jack = playback.output as? JACKOutput else { return nil }
        return try CommandFailure.describing(.inputOutput, prefix: "cannot register the JACK MIDI output: ") { try JACKSongMIDIOutput(playback: playback, driver: jack.jack, connecting: jackMidiConnect) }
    }
}

extension AudioDriverArguments {
    /// The output real-time playback plays to, `options` given the channels it needs: the JACK client with
    /// `--audio-driver jack` (a stereo pair per MIDI channel beside the mix with `--jack-multi`), else the
    /// ALSA `device`; throws (5) when it cannot be opened.
    func openPlaybackOutput(device: DeviceArguments, options: inout RenderOptions) throws(CommandFailure) -> RealtimeOutput {
        guard usesJACK else { return try device.openSoundCard(options: options) }
        if jackMulti {
            options.channelOutputs = true
            options.outputChannelCount = jackPortNames.count
        }
        return try openJACKOutput(portNames: jackPortNames)
    }
}
