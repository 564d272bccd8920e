import ALSA
import ALSAAudio
import AudioOutput
import FluidSynth
import Foundation
import MIDIFile
import Rendering

/// `seqplay song.mid` without `-o`: plays to a sound device in real time, with a status line and
/// keys (space pause/resume, ←/→ seek ±5 s, q quit) when on a terminal. `SongPlayback` does the work.
struct RealtimePlayback {
    /// What to open: `device` (ALSA name, or `null` for a clock-paced output that plays nothing).
    let device: String
    let periodFrames: Int
    let periodCount: Int
    let verbose: Bool

    /// How playback ended, for the exit status.
    enum Outcome {
        case finished, quit, interrupted
        case deviceFailed(AudioDriverError)
    }

    /// Opens the output with the channels `options` needs and at its rate (a device may choose another rate).
    func openOutput(options: RenderOptions) throws(AudioOutputError) -> RealtimeOutput {
        if device == "null" {
            return NullOutput(sampleRate: options.sampleRate, channelCount: options.outputChannelCount, periodFrames: periodFrames)
        }
        let settings = PCMPlaybackSettings(sampleRate: options.sampleRate, channelCount: options.outputChannelCount,
                                           periodFrames: periodFrames, periodCount: periodCount)
        return try ALSAOutput(deviceName: device, settings: settings)
    }

    /// Plays `playback` to the end, until q, or until `interruption` sees a signal; returns how it ended.
    func run(_ playback: SongPlayback, statusLine: StatusLine, interruption: Interruption) throws(AudioOutputError) -> Outcome {
        try playback.start()
        if verbose, let scheduling = playback.output.scheduling {
            let output = playback.output
            report("\(device): \(output.sampleRate) Hz, \(output.channelCount) ch, period \(output.periodFrames) frames; \(scheduling)")
        }
        let terminal = Terminal()
        var outcome = Outcome.finished
        while true {
            FluidSynthLog.forwardPendingMessages()
            if interruption.isRequested { outcome = .interrupted; break }
            if playback.hasEnded { break }
            if playback.isFinished { break }
            guard let terminal else {
                usleep(100_000)
                continue
            }
            for key in terminal.readKeys(waitingUpTo: 100) {
                switch key {
                case .space: playback.isPaused ? playback.resume() : playback.pause()
                case .left: playback.seek(bySeconds: -5)
                case .right: playback.seek(bySeconds: 5)
                case .quit: outcome = .quit
                }
            }
            if case .quit = outcome { break }
            let level = playback.renderer.levelMeter?.level(ofChannel: 0)
            terminal.showStatus(statusLine.text(paused: playback.isPaused, position: playback.positionSeconds,
                                                duration: playback.durationSeconds,
                                                voices: playback.renderer.sampler.activeVoiceCount,
                                                xruns: playback.output.xrunCount, level: level))
        }
        terminal?.restore()
        if case .finished = outcome {} else { playback.allNotesOff() }
        // Quitting drops what is buffered; the end of the song and Ctrl-C play it out.
        let end: PlaybackEnd
        if case .quit = outcome { end = playback.stop(draining: false) } else { end = playback.stop(draining: true) }
        FluidSynthLog.forwardPendingMessages()
        if case .failed(let error) = end { return .deviceFailed(error) }
        if verbose { report("xruns: \(playback.output.xrunCount)") }
        return outcome
    }

    private func report(_ message: String) {
        CommandLineOutput.writeStandardError(Data("seqplay: \(message)\n".utf8))
    }
}
