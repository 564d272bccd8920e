import Foundation
import MIDICore
import SeqplaySupport

/// Delivers received messages to a receiver at their scheduled monotonic time, from a thread of its
/// own: the playout buffer that turns RTP timestamps back into even timing.
// Why unchecked: the heap and `stopping` are touched only under `condition`.
final class PlayoutScheduler: @unchecked Sendable {
    private struct Entry {
        var time: UInt64
        var order: UInt64
        /// nil: the peer left.
        var message: MIDIMessage?
        var peerSSRC: UInt32
    }

    private let receiver: any MIDIReceiver
    private let condition = NSCondition()
    private var heap: [Entry] = []
    private var nextOrder: UInt64 = 0
    private var stopping = false
    private let playout = ServiceThread()

    init(receiver: any MIDIReceiver, realTimePriority: Int32) {
        self.receiver = receiver
        playout.start(name: "NetworkMIDI playout", qualityOfService: .userInteractive) { [self] in
            RealtimeScheduling.raiseCurrentThread(toPriority: realTimePriority)
            run()
        }
    }

    /// Queues `message` (nil: the peer left) for delivery at monotonic time `time` (nanoseconds);
    /// messages with equal times keep their order.
    func schedule(_ message: MIDIMessage?, at time: UInt64, fromPeer ssrc: UInt32) {
        condition.lock()
        push(Entry(time: time, order: nextOrder, message: message, peerSSRC: ssrc))
        nextOrder += 1
        condition.signal()
        condition.unlock()
    }

    /// Delivers every queued message at once, in order (so no note-off is lost), and ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        playout.join()
    }

    private func run() {
        condition.lock()
        while true {
            guard let first = heap.first else {
                if stopping { break }
                condition.wait()
                continue
            }
            let now = MonotonicClock.now()
            if first.time > now && !stopping {
                // Sleep on the condition until about 1 ms before, then spin-sleep precisely.
                if first.time - now > 2_000_000 {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(first.time - now - 1_000_000) / 1e9))
                } else {
                    condition.unlock()
                    // Kept: the last millisecond to a message's time, to the clock's precision (a condition wakes late).
                    MonotonicClock.wait(until: first.time)
                    condition.lock()
                }
                continue
            }
            let entry = pop()
            condition.unlock()
            receiver.deliver(entry.message, scheduledAt: entry.time, fromPeer: entry.peerSSRC)
            condition.lock()
        }
        condition.unlock()
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.time != b.time ? a.time < b.time : a.order < b.order
    }

    private func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.before(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
