import Atomics

/// A fixed-capacity FIFO between one producer thread and one consumer thread that never allocates,
/// locks or waits after `init`: the way MIDI crosses from an input or network thread to the audio
/// render thread. An element stays in its slot until the producer overwrites it, so an element
/// holding memory (a SysEx message) is never freed by the consumer.
// Why unchecked: one producer and one consumer thread; a slot changes hands through the release/acquire of the two positions (atomics).
public final class SingleProducerQueue<Element>: @unchecked Sendable {
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    public let capacity: Int
    /// Count of elements taken so far; written by the consumer only.
    @usableFromInline let taken = ManagedAtomic<Int>(0)
    /// Count of elements added so far; written by the producer only.
    @usableFromInline let added = ManagedAtomic<Int>(0)

    /// A queue of `capacity` slots, all holding `filler` until used.
    public init(capacity: Int, filler: Element) {
        precondition(capacity > 0, "a queue needs room for an element")
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: filler, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Adds `element` at the end (producer). Returns false, dropping it, when the queue is full.
    @inlinable @discardableResult
    public func append(_ element: Element) -> Bool {
        let end = added.load(ordering: .relaxed)
        guard end - taken.load(ordering: .acquiring) < capacity else { return false }
        slots[end % capacity] = element
        added.store(end + 1, ordering: .releasing)
        return true
    }

    /// Elements added and not taken yet (exact on the producer's thread when it is also the consumer's;
    /// otherwise a snapshot).
    public var count: Int { added.load(ordering: .acquiring) - taken.load(ordering: .acquiring) }

    /// The oldest element, without taking it (consumer).
    @inlinable
    public var first: Element? {
        let start = taken.load(ordering: .relaxed)
        guard start < added.load(ordering: .acquiring) else { return nil }
        return slots[start % capacity]
    }

    /// Takes the oldest element (consumer); `nil` when empty.
    @inlinable @discardableResult
    public func removeFirst() -> Element? {
        guard let element = first else { return nil }
        taken.wrappingIncrement(ordering: .releasing)
        return element
    }
}
