import ALSA
import MIDICore
import XCTest

/// Scheduling on a kernel queue: events arrive at their times, stamped by the kernel.
final class SequencerQueueTests: XCTestCase {
    /// Real-time events scheduled on a queue arrive with kernel timestamps (same queue) within 1 ms of
    /// the times asked for, in order.
    func testRealTimeEventsArriveOnTime() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay queue test")
        let queue = try SequencerQueue(client: client, name: "test queue")
        let output = try client.createPort(name: "out", capabilities: .output)
        let input = try client.createPort(name: "in", capabilities: .input, timestampQueue: queue)
        let times: [UInt64] = [200, 250, 333, 500, 501, 750].map { $0 * 1_000_000 }
        try queue.start()
        for (index, time) in times.enumerated() {
            try client.send(.noteOn(channel: 0, note: UInt8(60 + index), velocity: 100), from: output,
                            to: .port(input.address), at: .realTime(nanoseconds: time), on: queue)
        }
        try client.flush()
        let events = try receive(times.count, from: client)
        XCTAssertEqual(events.map(\.message), times.indices.map { .noteOn(channel: 0, note: UInt8(60 + $0), velocity: 100) })
        for (event, time) in zip(events, times) {
            guard case .realTime(let stamped) = event.timestamp else { return XCTFail("no real-time stamp: \(event)") }
            XCTAssertLessThan(abs(Int64(stamped) - Int64(time)), 1_000_000, "stamped \(stamped) ns, asked \(time) ns")
        }
    }

    /// Tick scheduling follows the queue's tempo: at 500 000 µs per quarter and 96 PPQ, tick 48 is 250 ms.
    func testTickEventsFollowTheQueueTempo() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay tick test")
        let queue = try SequencerQueue(client: client, name: "tick queue")
        try queue.setTempo(microsecondsPerQuarter: 500_000, ticksPerQuarter: 96)
        let output = try client.createPort(name: "out", capabilities: .output)
        let input = try client.createPort(name: "in", capabilities: .input, timestampQueue: queue)
        try queue.start()
        for tick: UInt32 in [48, 96, 192] {
            try client.send(.timingClock, from: output, to: .port(input.address), at: .tick(tick), on: queue)
        }
        try client.flush()
        let events = try receive(3, from: client)
        XCTAssertEqual(events.count, 3)
        let expected: [Int64] = [250_000_000, 500_000_000, 1_000_000_000]
        for (event, time) in zip(events, expected) {
            guard case .realTime(let stamped) = event.timestamp else { return XCTFail("no real-time stamp: \(event)") }
            XCTAssertLessThan(abs(Int64(stamped) - time), 1_000_000, "stamped \(stamped) ns, expected \(time) ns")
        }
        XCTAssertGreaterThanOrEqual(try queue.position().tick, 192)
    }

    /// Dropping pending output removes events scheduled for later, in the kernel and in the buffer.
    func testDroppedEventsNeverArrive() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay drop test")
        let queue = try SequencerQueue(client: client, name: "drop queue")
        let output = try client.createPort(name: "out", capabilities: .output)
        let input = try client.createPort(name: "in", capabilities: .input)
        try queue.start()
        try client.send(.noteOn(channel: 0, note: 60, velocity: 1), from: output, to: .port(input.address),
                        at: .realTime(nanoseconds: 300_000_000), on: queue)
        try client.flush()
        try client.send(.noteOn(channel: 0, note: 61, velocity: 1), from: output, to: .port(input.address),
                        at: .realTime(nanoseconds: 300_000_000), on: queue)
        try client.dropPendingOutput(on: queue)
        try client.send(.noteOn(channel: 0, note: 62, velocity: 1), from: output, to: .port(input.address))
        XCTAssertEqual(try receive(2, from: client, timeoutMilliseconds: 800).map(\.message),
                       [.noteOn(channel: 0, note: 62, velocity: 1)])
    }
}
