import Control
import Foundation
import LV2
import Sampler
import SeqplaySupport

extension LiveSamplerSession {
    /// Tells `status` of each source port connected ("Connected 20:0 (USB Keyboard: Port 1)") or not
    /// ("Cannot connect 20:0: why"), and `control` (when given) of each one connected, as an input.
    public func reportConnections(to control: SoundModuleControl?, status: @escaping @Sendable (String) -> Void) {
        onConnection = { [unowned self] source, error in
            if let error { return status("Cannot connect \(source): \(error)") }
            let name = describe(source)
            control?.inputConnected(name)
            status("Connected \(name)")
        }
    }

    /// Plays until a signal reaches `interruption`, `duration` seconds (nil: no limit) pass or q is
    /// pressed on `keys`, forwarding FluidSynth's and LV2 plugins' queued messages every 20 ms meanwhile;
    /// then restores the terminal, stops `host` and the session and returns the session's summary, as
    /// `seqplay live` and `serve` do.
    public func run(until interruption: Interruption, duration: Double?, keys: TerminalKeys,
                    host: SoundModuleHost?) -> Summary {
        interruption.wait(timeout: duration, every: 0.02) {
            if keys.nextKey() == "q" { interruption.finish() }
            FluidSynthLog.forwardPendingMessages()
            LV2Log.forwardPendingMessages()
        }
        keys.restore()
        if let host {
            host.stop()
            // The time the host's notes-off take to be rendered and heard (a block or two) before the output closes.
            MonotonicClock.wait(until: MonotonicClock.now() + 20_000_000)
        }
        return stop()
    }
}
