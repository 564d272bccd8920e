import MIDICore
import RealtimeSupport

/// A receiver that also wants each received message's scheduled time and sender, e.g. to show them
/// in a monitor or to queue the message on the sending peer's ALSA port with its timestamp. A session
/// calls `receive(_:scheduledAt:fromPeer:)` instead of `receive(_:)` on receivers that adopt this
/// protocol.
public protocol NetworkMIDITimedReceiver: MIDIReceiver {
    /// Acts on `message`, which the sender stamped for monotonic time `time` (nanoseconds, see
    /// `MonotonicClock.now()`): its RTP timestamp mapped to the local clock through the
    /// clock-sync offset, plus the playout latency. With a playout latency the call comes at about
    /// that time; with latency 0 it comes as soon as the packet arrives. `ssrc` identifies the peer
    /// it came from (`NetworkMIDIPeer.ssrc`).
    func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32)
}

extension MIDIReceiver {
    /// Delivers `message` with its scheduled time and sender to receivers that want them.
    func deliver(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        if let timed = self as? any NetworkMIDITimedReceiver {
            timed.receive(message, scheduledAt: time, fromPeer: ssrc)
        } else {
            receive(message)
        }
    }
}
