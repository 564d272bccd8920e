import Atomics
import MIDICore
import RealtimeSupport

/// One MIDI message arriving from outside (a network peer, an input port), with the monotonic time
/// (CLOCK_MONOTONIC nanoseconds) it should sound at and a number naming its source.
public struct LiveMIDIEvent: Sendable {
    public var message: MIDIMessage
    /// When the message should sound, in monotonic nanoseconds.
    public var time: UInt64
    /// Who sent it (for the network: the peer's SSRC).
    public var source: UInt32

    public init(message: MIDIMessage, time: UInt64, source: UInt32) {
        self.message = message
        self.time = time
        self.source = source
    }
}

/// A fixed-size first-in first-out queue of `LiveMIDIEvent`s from input threads to one consumer
/// (the audio render thread, or a monitor's printing thread).
///
/// The consumer side (`peek`, `pop`) never locks or allocates. Producers are serialized among
/// themselves by a lock on their side only (a session may deliver from its network thread and its
/// playout thread), so the consumer never waits for them. When full, new events are dropped and
/// counted.
public final class LiveMIDIQueue: @unchecked Sendable {
    public var capacity: Int { events.capacity }
    private let events: SingleProducerQueue<LiveMIDIEvent>
    private let producerLock = ManagedAtomic<Bool>(false)
    private let dropped = ManagedAtomic<Int>(0)

    /// A queue holding up to `capacity` events.
    public init(capacity: Int = 4096) {
        events = SingleProducerQueue(capacity: capacity, filler: LiveMIDIEvent(message: .tuneRequest, time: 0, source: 0))
    }

    /// Events dropped because the queue was full.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Adds `event` (any producer thread). Returns false, counting a drop, when the queue is full.
    @discardableResult
    public func push(_ event: LiveMIDIEvent) -> Bool {
        while !producerLock.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { producerLock.store(false, ordering: .releasing) }
        guard events.append(event) else {
            dropped.wrappingIncrement(ordering: .relaxed)
            return false
        }
        return true
    }

    /// The oldest event, without removing it; nil when empty (the consumer thread only).
    public func peek() -> LiveMIDIEvent? { events.first }

    /// Removes the oldest event (the consumer thread only; after `peek` returned it).
    public func pop() { events.removeFirst() }
}
