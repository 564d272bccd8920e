import Dispatch
import MIDICore
import SeqplaySupport
import Synchronization

/// What a network session delivers, queued for another thread to take (as `seqplay monitor --network`
/// prints it): each message with its scheduled time and the peer's SSRC. The session delivers from
/// one thread, the only producer; a full queue drops the event and counts it. The consumer takes them
/// as they come (`events.removeFirst()`) or waits for the next (`next(until:)`).
///
///     let queue = NetworkMIDIEventQueue()
///     let session = try NetworkMIDISession(configuration: configuration, deliveringTo: queue)
///     while let event = queue.events.removeFirst() { print(event.message) }
public final class NetworkMIDIEventQueue: NetworkMIDITimedReceiver, Sendable {
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
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }
    private let droppedCount = Atomic<Int>(0)
    /// Signalled for each event queued and by `wake()` (a counter and a futex wake: no lock, no allocation).
    private let arrival = DispatchSemaphore(value: 0)

    /// An empty queue for `capacity` events.
    public init(capacity: Int = 1 << 16) {
        events = SingleProducerQueue(capacity: capacity, filler: Event(message: .tuneRequest, time: 0, ssrc: 0))
    }

    public func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        if events.append(Event(message: message, time: time, ssrc: ssrc)) {
            arrival.signal()
        } else {
            droppedCount.add(1, ordering: .relaxed)
        }
    }

    /// The oldest event, waiting for one until the `MonotonicClock` time `deadline` (nil: no limit);
    /// nil when none came by then or `wake()` ended the wait. The consumer's thread only.
    public func next(until deadline: UInt64? = nil) -> Event? {
        if let event = events.removeFirst() { return event }
        if let deadline {
            let now = MonotonicClock.now()
            _ = arrival.wait(timeout: .now() + .nanoseconds(Int(clamping: deadline > now ? deadline - now : 0)))
        } else {
            arrival.wait()
        }
        return events.removeFirst()
    }

    /// Ends a wait of `next(until:)` (any thread), as a signal to stop does.
    public func wake() {
        arrival.signal()
    }

    public func receive(_ message: MIDIMessage) {
        receive(message, scheduledAt: MonotonicClock.now(), fromPeer: 0)
    }
}
