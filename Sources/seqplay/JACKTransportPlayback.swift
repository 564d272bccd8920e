import SeqplaySupport
import ArgumentParser
import Sampler
import JACK
import LV2
import Sessions
import MIDIFile
import Rendering

/// `seqplay SONG -a jack --jack-transport follow|lead`: the song plays, stops and seeks with the JACK
/// transport (`JACKSongTransport`). On a terminal: space starts/stops the transport, ←/→ locate it
/// ∓5 s, q quits; the status line shows the song where the transport has it (`PlaybackMode.jackTransport`).
extension RealtimeSong {
    func playWithJACKTransport(_ sequence: MusicSequence, audio: AudioDriverArguments, mode: JACKTransportMode) throws {
        var options = try sound.renderOptions(for: sequence)
        guard let output = try audio.openPlaybackOutput(device: device, options: &options) as? JACKOutput else { return }
        let outputName = audio.outputName(device: device.device)
        let playback = try SongPlayback(sequence: sequence, soundFontPaths: sound.fontPaths(), options: options, output: output)
        let transport = try CommandFailure.describing(.inputOutput, prefix: "cannot use the JACK transport: ") { try JACKSongTransport(playback: playback, client: output.jack.client, mode: mode) }
        let interruption = Interruption()
        try CommandFailure.describing(.inputOutput, prefix: "cannot play to \(outputName): ") { try transport.start() }
        if device.verbose {
            CommandLineOutput.note("\(outputName): \(output.sampleRate) Hz, block \(output.periodFrames) frames; "
                                   + (mode == .lead ? "timebase master, transport started" : "following the transport"))
        }
        runTransportKeys(transport, interruption: interruption)
        let end = transport.stop()
        FluidSynthLog.forwardPendingMessages()
        LV2Log.forwardPendingMessages()
        if case .failed(let error) = end { throw CommandFailure("playback to \(outputName) ended: \(error)", .inputOutput) }
        if device.verbose { CommandLineOutput.note("xruns: \(output.xrunCount), transport seeks: \(transport.seekCount)") }
        if interruption.isRequested { throw CommandFailure(nil, .interrupted) }
    }

    /// Status line and keys (transport start/stop, locate) until q, a signal, the output's end or
    /// (leading) the song's end.
    private func runTransportKeys(_ transport: JACKSongTransport, interruption: Interruption) {
        let keys = PlaybackKeys(togglePause: { transport.togglePlay() }, seek: { transport.locate(bySeconds: $0) },
                                isPaused: { !transport.isRolling }, position: { transport.positionSeconds })
        _ = keys.run(transport.playback, interruption: interruption) {
            transport.mode == .lead && transport.playback.isFinished
        }
    }
}
