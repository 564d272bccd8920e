import Atomics

/// A fixed-capacity FIFO between exactly one producer thread and one consumer thread that never
/// allocates, locks or waits after `init`: the way events cross from a MIDI input thread to the
/// audio render thread (and announcements from the input thread to the control thread).
final class SingleProducerQueue<Element>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element>
    private let capacity: Int
    /// Count of elements taken so far; written by the consumer only.
    private let taken = ManagedAtomic<Int>(0)
    /// Count of elements added so far; written by the producer only.
    private let added = ManagedAtomic<Int>(0)

    /// A queue of `capacity` slots, all holding `filler` until used.
    init(capacity: Int, filler: Element) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: filler, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Adds `element` at the end (producer). Returns false, dropping it, when the queue is full.
    @discardableResult
    func append(_ element: Element) -> Bool {
        let end = added.load(ordering: .relaxed)
        guard end - taken.load(ordering: .acquiring) < capacity else { return false }
        slots[end % capacity] = element
        added.store(end + 1, ordering: .releasing)
        return true
    }

    /// The oldest element, without taking it (consumer).
    var first: Element? {
        let start = taken.load(ordering: .relaxed)
        guard start < added.load(ordering: .acquiring) else { return nil }
        return slots[start % capacity]
    }

    /// Takes the oldest element (consumer); `nil` when empty.
    func removeFirst() -> Element? {
        guard let element = first else { return nil }
        taken.wrappingIncrement(ordering: .releasing)
        return element
    }
}
