import MIDICore
import SeqplaySupport

/// What a network session delivers, queued for another thread to take (as `seqplay monitor --network`
/// prints it): each message with its scheduled time and the peer's SSRC. The session delivers from
/// one thread, the only producer; a full queue drops the event and counts it.
///
///     let queue = NetworkMIDIEventQueue()
///     let session = try NetworkMIDISession(configuration: configuration, deliveringTo: queue)
///     while let event = queue.events.removeFirst() { print(event.message) }
public final class NetworkMIDIEventQueue: NetworkMIDITimedReceiver, @unchecked Sendable {
    /// A message as the session delivered it.
    public struct Event: Sendable {
        public var message: MIDIMessage
        /// When it is to sound (`MonotonicClock` nanoseconds).
        public var time: UInt64
        /// The sending peer's SSRC (0: a message without a peer).
        public var ssrc: UInt32
    }

    /// The events, oldest first; one consumer takes them.
    public let events: SingleProducerQueue<Event>
    /// How many events did not fit (only the delivering thread writes it).
    public private(set) var dropped = 0

    /// An empty queue for `capacity` events.
    public init(capacity: Int = 1 << 16) {
        events = SingleProducerQueue(capacity: capacity, filler: Event(message: .tuneRequest, time: 0, ssrc: 0))
    }

    public func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        if !events.append(Event(message: message, time: time, ssrc: ssrc)) { dropped += 1 }
    }

    public func receive(_ message: MIDIMessage) {
        receive(message, scheduledAt: MonotonicClock.now(), fromPeer: 0)
    }
}
