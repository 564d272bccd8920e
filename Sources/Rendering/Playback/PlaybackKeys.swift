import Foundation
import LV2
import Sampler
import SeqplaySupport

/// What the keys of real-time playback do (space, ←/→) and what the status line shows: the
/// playback's own pause and seek, or the JACK transport's start/stop and locate.
public struct PlaybackKeys {
    public var togglePause: () -> Void
    public var seek: (_ seconds: Double) -> Void
    public var isPaused: () -> Bool
    public var position: () -> Double

    /// Keys that call these: space `togglePause`, ←/→ `seek` by ∓5 s; the status line shows `isPaused()` and `position()`.
    public init(togglePause: @escaping () -> Void, seek: @escaping (_ seconds: Double) -> Void, isPaused: @escaping () -> Bool,
                position: @escaping () -> Double) {
        self.togglePause = togglePause
        self.seek = seek
        self.isPaused = isPaused
        self.position = position
    }

    /// Shows `playback`'s status line and acts on keys until `isDone`, the output's end, q (returns
    /// true) or a signal.
    public func run(_ playback: SongPlayback, interruption: Interruption, isDone: () -> Bool) -> Bool {
        let terminal = Terminal()
        defer { terminal?.restore() }
        let statusLine = PlaybackStatusLine(player: playback.renderer.player)
        while !interruption.isRequested && !playback.hasEnded && !isDone() {
            FluidSynthLog.forwardPendingMessages()
            LV2Log.forwardPendingMessages()
            guard let terminal else {
                // No keys to read: the status loop's period (the logs forwarded), which a signal cuts short.
                interruption.wait(timeout: 0.05)
                continue
            }
            for key in terminal.readKeys(waitingUpTo: 100) {
                switch key {
                case .space: togglePause()
                case .left: seek(-5)
                case .right: seek(5)
                case .quit: return true
                }
            }
            terminal.showStatus(statusLine.text(paused: isPaused(), position: position(),
                                                duration: playback.durationSeconds,
                                                voices: playback.renderer.samplers.reduce(0) { $0 + $1.activeVoiceCount },
                                                xruns: playback.output.xrunCount,
                                                level: playback.renderer.levelMeter?.level(ofChannel: 0)))
        }
        return false
    }
}
