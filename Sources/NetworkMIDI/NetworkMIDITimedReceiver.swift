import MIDICore

/// A receiver that also wants each received message's scheduled time, e.g. to show it in a monitor
/// or to queue it on an ALSA port with its timestamp. A session calls `receive(_:scheduledAt:)`
/// instead of `receive(_:)` on receivers that adopt this protocol.
public protocol NetworkMIDITimedReceiver: MIDIReceiver {
    /// Acts on `message`, which the sender stamped for monotonic time `time` (nanoseconds, see
    /// `NetworkClock.nowNanoseconds()`): its RTP timestamp mapped to the local clock through the
    /// clock-sync offset, plus the playout latency. With a playout latency the call comes at about
    /// that time; with latency 0 it comes as soon as the packet arrives.
    func receive(_ message: MIDIMessage, scheduledAt time: UInt64)
}

extension MIDIReceiver {
    /// Delivers `message` with its scheduled time to receivers that want it.
    func deliver(_ message: MIDIMessage, scheduledAt time: UInt64) {
        if let timed = self as? any NetworkMIDITimedReceiver {
            timed.receive(message, scheduledAt: time)
        } else {
            receive(message)
        }
    }
}
