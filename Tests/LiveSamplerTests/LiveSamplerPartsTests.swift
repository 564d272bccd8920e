@testable import LiveSampler
import MIDICore
import XCTest
import RealtimeSupport

/// The parts of the live sampler host that need no sequencer: the queue to the render thread, the
/// held-notes table behind note release, and the queue-clock-to-sample-time mapping.
final class LiveSamplerPartsTests: XCTestCase {
    func testQueueKeepsOrderAndRefusesWhenFull() {
        let queue = SingleProducerQueue<Int>(capacity: 4, filler: 0)
        for value in 1...4 { XCTAssertTrue(queue.append(value)) }
        XCTAssertFalse(queue.append(5))
        XCTAssertEqual(queue.first, 1)
        XCTAssertEqual(queue.removeFirst(), 1)
        XCTAssertTrue(queue.append(6))
        XCTAssertEqual([queue.removeFirst(), queue.removeFirst(), queue.removeFirst(), queue.removeFirst()], [2, 3, 4, 6])
        XCTAssertNil(queue.removeFirst())
    }

    func testReleasingAClientEndsItsNotesAndPedalOnly() {
        var held = HeldNotes()
        held.update(.noteOn(channel: 0, note: 60, velocity: 90), from: 20)
        held.update(.noteOn(channel: 0, note: 64, velocity: 90), from: 20)
        held.update(.noteOff(channel: 0, note: 64, velocity: 0), from: 20)
        held.update(.noteOn(channel: 3, note: 127, velocity: 1), from: 20)
        held.update(.noteOn(channel: 3, note: 5, velocity: 0), from: 20)  // velocity 0: a note-off
        held.update(.controlChange(channel: 3, controller: 64, value: 127), from: 20)
        held.update(.noteOn(channel: 0, note: 62, velocity: 90), from: 21)
        var released: [MIDIMessage] = []
        held.releaseAll(from: 20) { released.append($0) }
        XCTAssertEqual(released, [.noteOff(channel: 0, note: 60, velocity: 0), .noteOff(channel: 3, note: 127, velocity: 0),
                                  .controlChange(channel: 3, controller: 64, value: 0)])
        released = []
        held.releaseAll(from: 20) { released.append($0) }
        XCTAssertEqual(released, [])
        held.releaseAll(from: 21) { released.append($0) }
        XCTAssertEqual(released, [.noteOff(channel: 0, note: 62, velocity: 0)])
    }

    func testQueueTimeMapsToTheEarliestObservedPeriod() {
        let clock = QueueToSampleClock(sampleRate: 48_000)
        XCTAssertNil(clock.sampleTime(queueNanoseconds: 0))
        let now = Int64(MonotonicClock.now())
        clock.calibrate(queueNanoseconds: 1_000_000_000, monotonicBefore: now, after: now)
        clock.observePeriodStart(sampleTime: 4096, periodFrames: 256)
        // The queue read 1 s at `now`, when sample 4096 was being rendered (give or take the call's time).
        let mapped = clock.sampleTime(queueNanoseconds: 1_000_000_000)!
        XCTAssertEqual(Double(mapped), 4096, accuracy: 48)
        // Half a second later on the queue is 24000 samples later.
        XCTAssertEqual(clock.sampleTime(queueNanoseconds: 1_500_000_000)! - mapped, 24_000)
        // A later, later-woken period does not move the mapping back.
        clock.observePeriodStart(sampleTime: 4096, periodFrames: 256)
        XCTAssertGreaterThanOrEqual(clock.sampleTime(queueNanoseconds: 1_000_000_000)!, mapped - 1)
    }
}
