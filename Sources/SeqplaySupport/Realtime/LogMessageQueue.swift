import Atomics

/// A fixed-size queue of short log messages (FluidSynth's and LV2 plugins' logs) that any thread, the audio render thread included, can
/// post to without allocating, locking or doing I/O; a normal thread takes them off and logs them.
///
/// A bounded multi-producer, multi-consumer queue (Vyukov's design): each slot carries a sequence
/// number that says whether it is free for the producer or filled for the consumer. A full queue drops
/// the new message and counts it.
// Why unchecked: a slot changes hands through its sequence number (an atomic), as Vyukov's queue does.
package final class LogMessageQueue: @unchecked Sendable {
    /// One message as it was posted: level and text, cut to `maximumTextLength` bytes.
    package struct Message {
        package var level: Int32
        package var text: String
    }

    package static let maximumTextLength = 255

    private let capacity: Int
    private let sequences: UnsafeMutablePointer<ManagedAtomic<Int>>
    private let levels: UnsafeMutablePointer<Int32>
    private let texts: UnsafeMutablePointer<UInt8>   // capacity × (maximumTextLength + 1) bytes
    private let lengths: UnsafeMutablePointer<Int>
    private let enqueuePosition = ManagedAtomic(0)
    private let dequeuePosition = ManagedAtomic(0)
    private let droppedCount = ManagedAtomic(0)

    /// `capacity` must be a power of two.
    package init(capacity: Int = 128) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        sequences = .allocate(capacity: capacity)
        for i in 0..<capacity { (sequences + i).initialize(to: ManagedAtomic(i)) }
        levels = .allocate(capacity: capacity)
        levels.initialize(repeating: 0, count: capacity)
        texts = .allocate(capacity: capacity * (Self.maximumTextLength + 1))
        lengths = .allocate(capacity: capacity)
        lengths.initialize(repeating: 0, count: capacity)
    }

    deinit {
        sequences.deinitialize(count: capacity)
        sequences.deallocate()
        levels.deallocate()
        texts.deallocate()
        lengths.deallocate()
    }

    /// Messages dropped because the queue was full.
    package var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Copies a NUL-terminated message into the queue. Real-time safe; drops it when the queue is full.
    package func post(level: Int32, text: UnsafePointer<CChar>) {
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let slot = position & (capacity - 1)
            let difference = sequences[slot].load(ordering: .acquiring) - position
            if difference == 0 {
                let (exchanged, current) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position + 1, ordering: .relaxed)
                if exchanged {
                    write(slot: slot, level: level, text: text)
                    sequences[slot].store(position + 1, ordering: .releasing)
                    return
                }
                position = current
            } else if difference < 0 {
                droppedCount.wrappingIncrement(ordering: .relaxed)
                return
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
    }

    /// Takes the oldest message off the queue, or returns `nil` when it is empty. Not real-time safe.
    package func take() -> Message? {
        var position = dequeuePosition.load(ordering: .relaxed)
        while true {
            let slot = position & (capacity - 1)
            let difference = sequences[slot].load(ordering: .acquiring) - (position + 1)
            if difference == 0 {
                let (exchanged, current) = dequeuePosition.weakCompareExchange(
                    expected: position, desired: position + 1, ordering: .relaxed)
                if exchanged {
                    let bytes = UnsafeBufferPointer(start: texts + slot * (Self.maximumTextLength + 1), count: lengths[slot])
                    let message = Message(level: levels[slot], text: String(decoding: bytes, as: UTF8.self))
                    sequences[slot].store(position + capacity, ordering: .releasing)
                    return message
                }
                position = current
            } else if difference < 0 {
                return nil
            } else {
                position = dequeuePosition.load(ordering: .relaxed)
            }
        }
    }

    private func write(slot: Int, level: Int32, text: UnsafePointer<CChar>) {
        let destination = texts + slot * (Self.maximumTextLength + 1)
        var length = 0
        while length < Self.maximumTextLength, text[length] != 0 {
            destination[length] = UInt8(bitPattern: text[length])
            length += 1
        }
        levels[slot] = level
        lengths[slot] = length
    }
}
