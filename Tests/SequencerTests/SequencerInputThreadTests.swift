import ALSA
import AllocationCounter
import MIDICore
import XCTest

/// The dedicated input thread: delivers every message in order and allocates nothing in steady state.
final class SequencerInputThreadTests: XCTestCase {
    /// What the handler records, in memory allocated before the thread starts.
    private final class Recorder: @unchecked Sendable {
        let capacity: Int
        let notes: UnsafeMutableBufferPointer<UInt8>
        var count = 0
        var allocations = -1
        let warmUp: Int
        let finished = DispatchSemaphore(value: 0)
        /// Signalled after every `batch` events, so the sender never overruns the kernel's input pool.
        let batchReceived = DispatchSemaphore(value: 0)
        static let batch = 100

        init(capacity: Int, warmUp: Int) {
            self.capacity = capacity
            self.warmUp = warmUp
            notes = .allocate(capacity: capacity)
        }

        deinit { notes.deallocate() }

        func record(_ event: SequencerEvent) {
            if count == warmUp { seqplay_alloc_count_begin() }
            if case .noteOn(_, let note, _) = event.message, count < capacity {
                notes[count] = note
            }
            count += 1
            if count % Self.batch == 0 { batchReceived.signal() }
            if count == capacity {
                allocations = seqplay_alloc_count_end().allocations
                finished.signal()
            }
        }
    }

    func testDeliversEveryMessageInOrderWithoutAllocating() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay input thread test")
        let output = try client.createPort(name: "out", capabilities: .output)
        let input = try client.createPort(name: "in", capabilities: .input)
        try client.connect(from: output.address, to: input.address)
        let recorder = Recorder(capacity: 2000, warmUp: 50)
        let thread = try SequencerInputThread(client: client) { recorder.record($0) }
        for index in 0..<recorder.capacity {
            try client.send(.noteOn(channel: 0, note: UInt8(index % 128), velocity: 64), from: output)
            if index % Recorder.batch == Recorder.batch - 1 {
                XCTAssertEqual(recorder.batchReceived.wait(timeout: .now() + 10), .success, "stalled at \(index)")
            }
        }
        XCTAssertEqual(recorder.finished.wait(timeout: .now() + 30), .success, "received \(recorder.count)")
        thread.stop()
        XCTAssertEqual(Array(recorder.notes), (0..<recorder.capacity).map { UInt8($0 % 128) })
        XCTAssertEqual(recorder.allocations, 0, "allocations on the input thread after warm-up")
    }

    func testStopsPromptlyWhenIdle() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay idle thread test")
        _ = try client.createPort(name: "in", capabilities: .input)
        let thread = try SequencerInputThread(client: client) { _ in }
        let started = Date()
        thread.stop()
        thread.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}
