import MIDICore
import SeqplaySupport

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

    /// Whether this receiver releases the notes of a peer that leaves by itself, when told by
    /// `peerLeft` (e.g. a live-input layer with its own held-note table). Otherwise (the default) the
    /// session sends note-offs for the notes its recovery journal state shows the peer sounding.
    var releasesNotesOfLeavingPeers: Bool { get }

    /// The peer `ssrc` left: called in the delivery stream after its last message, scheduled at
    /// `time` (after everything already scheduled from it), on the thread that delivers messages.
    func peerLeft(_ ssrc: UInt32, scheduledAt time: UInt64)
}

extension NetworkMIDITimedReceiver {
    public var releasesNotesOfLeavingPeers: Bool { false }
    public func peerLeft(_ ssrc: UInt32, scheduledAt time: UInt64) {}
}

extension MIDIReceiver {
    /// Delivers `message` with its scheduled time and sender to receivers that want them; a nil
    /// message says that the peer left.
    func deliver(_ message: MIDIMessage?, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        if let timed = self as? any NetworkMIDITimedReceiver {
            if let message {
                timed.receive(message, scheduledAt: time, fromPeer: ssrc)
            } else {
                timed.peerLeft(ssrc, scheduledAt: time)
            }
        } else if let message {
            receive(message)
        }
    }

    /// Whether this receiver releases the notes of peers that leave by itself.
    var releasesNotesOfLeavingPeers: Bool {
        (self as? any NetworkMIDITimedReceiver)?.releasesNotesOfLeavingPeers ?? false
    }
}
