import Atomics
import MIDICore

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
/// The consumer side (`peek`, `pop`) never locks or allocates: it reads slots published with
/// release/acquire atomics. Producers are serialized among themselves by a lock on their side only
/// (a session may deliver from its network thread and its playout thread), so the consumer never
/// waits for them. A slot's message is released by the producer that overwrites it, never by the
/// consumer, so a SysEx buffer is not freed on the render thread. When full, new events are dropped
/// and counted.
public final class LiveMIDIQueue: @unchecked Sendable {
    public let capacity: Int
    private let slots: UnsafeMutablePointer<LiveMIDIEvent>
    /// Next slot the consumer reads; written by the consumer only.
    private let head = ManagedAtomic<Int>(0)
    /// Next slot a producer writes; written by producers only (under `producerLock`).
    private let tail = ManagedAtomic<Int>(0)
    private let producerLock = ManagedAtomic<Bool>(false)
    private let dropped = ManagedAtomic<Int>(0)

    /// A queue holding up to `capacity` events.
    public init(capacity: Int = 4096) {
        precondition(capacity > 0, "a queue needs room for an event")
        self.capacity = capacity
        slots = .allocate(capacity: capacity + 1)
        slots.initialize(repeating: LiveMIDIEvent(message: .tuneRequest, time: 0, source: 0), count: capacity + 1)
    }

    deinit {
        slots.deinitialize(count: capacity + 1)
        slots.deallocate()
    }

    /// Events dropped because the queue was full.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Adds `event` (any producer thread). Returns false, counting a drop, when the queue is full.
    @discardableResult
    public func push(_ event: LiveMIDIEvent) -> Bool {
        while !producerLock.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { producerLock.store(false, ordering: .releasing) }
        let position = tail.load(ordering: .relaxed)
        let next = (position + 1) % (capacity + 1)
        guard next != head.load(ordering: .acquiring) else {
            dropped.wrappingIncrement(ordering: .relaxed)
            return false
        }
        slots[position] = event
        tail.store(next, ordering: .releasing)
        return true
    }

    /// The oldest event, without removing it; nil when empty (the consumer thread only).
    public func peek() -> LiveMIDIEvent? {
        let position = head.load(ordering: .relaxed)
        guard position != tail.load(ordering: .acquiring) else { return nil }
        return slots[position]
    }

    /// Removes the oldest event (the consumer thread only; after `peek` returned it).
    public func pop() {
        let position = head.load(ordering: .relaxed)
        guard position != tail.load(ordering: .acquiring) else { return }
        head.store((position + 1) % (capacity + 1), ordering: .releasing)
    }
}
