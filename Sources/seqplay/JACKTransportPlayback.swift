import ArgumentParser
import FluidSynth
import Foundation
import JACKOutput
import JACKSongTransport
import MIDIFile
import Rendering

/// `seqplay SONG -a jack --jack-transport follow|lead`: the song plays, stops and seeks with the JACK
/// transport (`JACKSongTransport`). On a terminal: space starts/stops the transport, ←/→ locate it
/// ∓5 s, q quits; the status line shows the song where the transport has it.
extension RenderCommand {
    func playWithJACKTransport(_ sequence: MusicSequence, mode: JACKTransportMode) throws {
        var options = try renderOptions(for: sequence)
        guard let output = openPlaybackOutput(&options) as? JACKOutput else { return }
        let playback = try SongPlayback(sequence: sequence, soundFontPaths: sound.fontPaths, options: options, output: output)
        let transport: JACKSongTransport
        do {
            transport = try JACKSongTransport(playback: playback, client: output.jack.client, mode: mode)
        } catch {
            CommandLineOutput.fail("cannot use the JACK transport: \(error)", .inputOutput)
        }
        let interruption = Interruption()
        do {
            try transport.start()
        } catch {
            CommandLineOutput.fail("cannot play to \(outputName): \(error)", .inputOutput)
        }
        if device.verbose {
            CommandLineOutput.note("\(outputName): \(output.sampleRate) Hz, block \(output.periodFrames) frames; "
                                   + (mode == .lead ? "timebase master, transport started" : "following the transport"))
        }
        runTransportKeys(transport, interruption: interruption)
        let end = transport.stop()
        FluidSynthLog.forwardPendingMessages()
        if case .failed(let error) = end { CommandLineOutput.fail("playback to \(outputName) ended: \(error)", .inputOutput) }
        if device.verbose { CommandLineOutput.note("xruns: \(output.xrunCount), transport seeks: \(transport.seekCount)") }
        if interruption.isRequested { throw ExitCode.interrupted }
    }

    /// Status line and keys until q, a signal, the output's end or (leading) the song's end.
    private func runTransportKeys(_ transport: JACKSongTransport, interruption: Interruption) {
        let playback = transport.playback
        let terminal = Terminal()
        defer { terminal?.restore() }
        let statusLine = StatusLine(player: playback.renderer.player)
        while !interruption.isRequested && !playback.hasEnded && !(transport.mode == .lead && playback.isFinished) {
            FluidSynthLog.forwardPendingMessages()
            guard let terminal else {
                usleep(50_000)
                continue
            }
            for key in terminal.readKeys(waitingUpTo: 100) {
                switch key {
                case .space: transport.togglePlay()
                case .left: transport.locate(bySeconds: -5)
                case .right: transport.locate(bySeconds: 5)
                case .quit: return
                }
            }
            terminal.showStatus(statusLine.text(paused: !transport.isRolling, position: transport.positionSeconds,
                                                duration: playback.durationSeconds,
                                                voices: playback.renderer.samplers.reduce(0) { $0 + $1.activeVoiceCount },
                                                xruns: playback.output.xrunCount,
                                                level: playback.renderer.levelMeter?.level(ofChannel: 0)))
        }
    }
}
