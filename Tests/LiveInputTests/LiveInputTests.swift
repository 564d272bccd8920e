import AllocationCounter
import SeqplaySupport
@testable import LiveInput
import MIDICore
import XCTest

/// Collects what a destination delivers, into storage allocated up front (so receiving does not
/// allocate, even unoptimized).
final class CollectingReceiver: MIDIReceiver {
    private let storage = UnsafeMutablePointer<MIDIMessage>.allocate(capacity: 1024)
    private(set) var count = 0
    /// Everything that arrived, cleared or not.
    private(set) var total = 0

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    func receive(_ message: MIDIMessage) {
        (storage + count).initialize(to: message)
        count += 1
        total += 1
    }

    /// What arrived since the last `clear()`.
    var messages: [MIDIMessage] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    func clear() {
        storage.deinitialize(count: count)
        count = 0
    }
}

/// The live-input layer: producers' queues (RealtimeSupport's `SingleProducerQueue`), the held-note table, placement in sample time, merging.
final class LiveInputTests: XCTestCase {
    let second: UInt64 = 1_000_000_000

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

    func testReleasingASourceEndsItsNotesAndPedalOnly() {
        var held = HeldNotes()
        held.update(.noteOn(channel: 0, note: 60, velocity: 90), from: 20)
        held.update(.noteOn(channel: 0, note: 64, velocity: 90), from: 20)
        held.update(.noteOff(channel: 0, note: 64, velocity: 0), from: 20)
        held.update(.noteOn(channel: 3, note: 127, velocity: 1), from: 20)
        held.update(.noteOn(channel: 3, note: 5, velocity: 0), from: 20)  // velocity 0: a note-off
        held.update(.controlChange(channel: 3, controller: 64, value: 127), from: 20)
        held.update(.noteOn(channel: 0, note: 62, velocity: 90), from: 0xDEAD_BEEF)
        var released: [MIDIMessage] = []
        held.releaseAll(from: 20) { released.append($0) }
        XCTAssertEqual(released, [.noteOff(channel: 0, note: 60, velocity: 0), .noteOff(channel: 3, note: 127, velocity: 0),
                                  .controlChange(channel: 3, controller: 64, value: 0)])
        released = []
        held.releaseAll(from: 20) { released.append($0) }
        XCTAssertEqual(released, [])
        held.releaseAll(from: 0xDEAD_BEEF) { released.append($0) }
        XCTAssertEqual(released, [.noteOff(channel: 0, note: 62, velocity: 0)])
    }

    func testTableReusesTheSlotsOfSourcesThatHoldNothing() {
        var held = HeldNotes(sourceCapacity: 2)
        for source in UInt32(1)...10 {
            held.update(.noteOn(channel: 0, note: 60, velocity: 90), from: source)
            held.update(.noteOff(channel: 0, note: 60, velocity: 0), from: source)
        }
        held.update(.noteOn(channel: 1, note: 61, velocity: 90), from: 11)
        var released: [MIDIMessage] = []
        held.releaseAll(from: 11) { released.append($0) }
        XCTAssertEqual(released, [.noteOff(channel: 1, note: 61, velocity: 0)])
    }

    func testProducerThatLeavesHasItsNotesReleasedAfterWhatItSent() {
        let input = LiveMIDIInput(destinationCount: 2, sampleRate: 48_000, periodFrames: 128)
        let alsa = input.addProducer(name: "ALSA ports", delivery: .immediate)
        let network = input.addProducer(name: "network session", delivery: .immediate)
        alsa.push(.noteOn(channel: 0, note: 60, velocity: 100), at: .immediate, from: 20, to: 0)
        alsa.push(.noteOn(channel: 0, note: 62, velocity: 100), at: .immediate, from: 21, to: 0)
        alsa.push(.noteOn(channel: 5, note: 40, velocity: 100), at: .immediate, from: 20, to: 1)
        network.push(.noteOn(channel: 9, note: 36, velocity: 100), at: .monotonic(1), from: 0xABCD_0001, to: 0)
        network.push(.controlChange(channel: 9, controller: 64, value: 127), at: .monotonic(1), from: 0xABCD_0001, to: 0)
        alsa.sourceLeft(20, at: 0)
        network.sourceLeft(0xABCD_0001)
        let first = CollectingReceiver(), second = CollectingReceiver()
        input.destinations[0].deliverEvents(before: 32, to: first)
        input.destinations[1].deliverEvents(before: 32, to: second)
        XCTAssertEqual(first.messages, [
            .noteOn(channel: 0, note: 60, velocity: 100), .noteOn(channel: 0, note: 62, velocity: 100),
            .noteOff(channel: 0, note: 60, velocity: 0),
            .noteOn(channel: 9, note: 36, velocity: 100), .controlChange(channel: 9, controller: 64, value: 127),
            .noteOff(channel: 9, note: 36, velocity: 0), .controlChange(channel: 9, controller: 64, value: 0),
        ])
        // Source 20 left destination 0 only: its note at destination 1 sounds on until it leaves there.
        XCTAssertEqual(second.messages, [.noteOn(channel: 5, note: 40, velocity: 100)])
        alsa.sourceLeft(20)
        input.destinations[1].deliverEvents(before: 96, to: second)
        XCTAssertEqual(second.messages.last, .noteOff(channel: 5, note: 40, velocity: 0))
    }

    func testOutputSampleTimesLandInTheNearestBlockWithoutTheClock() {
        let input = LiveMIDIInput(destinationCount: 1, sampleRate: 48_000, periodFrames: 256)
        let jack = input.addProducer(name: "JACK MIDI", delivery: .timestamped(lookAheadFrames: 0))
        // No period observed yet: the clock maps nothing, output sample times need no mapping.
        jack.push(.noteOn(channel: 0, note: 60, velocity: 1), at: .outputSampleTime(95), from: 0)   // block 64 (95 < 64 + 32)
        jack.push(.noteOn(channel: 0, note: 61, velocity: 1), at: .outputSampleTime(96), from: 0)   // block 128 (the nearest)
        jack.push(.noteOn(channel: 0, note: 62, velocity: 1), at: .outputSampleTime(1000), from: 0) // block 1024 (1000 ≥ 960 + 32)
        let delivered = noteOnsByBlock(input, blockCount: 20)
        XCTAssertEqual(delivered.map(\.note), [60, 61, 62])
        XCTAssertEqual(delivered.map(\.block), [64, 128, 1024])
        XCTAssertEqual(input.lateEventCount, 0)
    }

    func testLateMessagesPlayAtTheNextBlockAndTheLatestLatenessIsKept() {
        let input = LiveMIDIInput(destinationCount: 1, sampleRate: 48_000, periodFrames: 256)
        let jack = input.addProducer(name: "JACK MIDI", delivery: .timestamped(lookAheadFrames: 0))
        let receiver = CollectingReceiver()
        for block in Int64(0)..<16 { input.destinations[0].deliverEvents(before: block * 64 + 32, to: receiver) }
        XCTAssertEqual(input.latestLateness, 0)
        // Due at samples 300 and 100, pushed only once the block from 1024 renders: late by 724 and 924 samples.
        jack.push(.noteOn(channel: 0, note: 60, velocity: 1), at: .outputSampleTime(300), from: 0)
        jack.push(.noteOn(channel: 0, note: 61, velocity: 1), at: .outputSampleTime(100), from: 1)
        input.destinations[0].deliverEvents(before: 1024 + 32, to: receiver)
        XCTAssertEqual(receiver.messages.count, 2)
        XCTAssertEqual(input.lateEventCount, 2)
        XCTAssertEqual(input.latestLateness, 924.0 / 48_000)
    }

    func testTimestampedMessagesLandInTheirBlockMergedAcrossProducers() {
        let input = LiveMIDIInput(destinationCount: 1, sampleRate: 48_000, periodFrames: 256)
        // Sample 0 was rendered at monotonic 10 s.
        input.clock.observePeriod(startingAt: 0, monotonic: 10 * second)
        let network = input.addProducer(name: "network", delivery: .timestamped(lookAheadFrames: 480))
        let ports = input.addProducer(name: "ports", delivery: .timestamped(lookAheadFrames: 480))
        // The ports' kernel queue started 2 s before the monotonic clock's 10 s.
        ports.calibrate(producerTime: 2_000_000_000, monotonic: 10 * second)
        network.push(.noteOn(channel: 0, note: 60, velocity: 1), at: .monotonic(10 * second + 10_000_000), from: 1)  // 480 + 480
        network.push(.noteOn(channel: 0, note: 61, velocity: 1), at: .monotonic(10 * second + 30_000_000), from: 1)  // 1440 + 480
        ports.push(.noteOn(channel: 0, note: 62, velocity: 1), at: .producerClock(2_020_000_000), from: 20)          // 960 + 480
        ports.push(.noteOn(channel: 0, note: 63, velocity: 1), at: .immediate, from: 20)
        let delivered = noteOnsByBlock(input, blockCount: 40)
        // 62 is due at 1440, the middle of the block at 1408: the block from 1472 takes it. 63 waits
        // behind it in the ports' queue (first in, first out per producer).
        XCTAssertEqual(delivered.map(\.note), [60, 62, 63, 61])
        XCTAssertEqual(delivered.map(\.block), [960, 1472, 1472, 1920])
        XCTAssertEqual(input.lateEventCount, 0)
    }

    func testRenderSideAndProducerSideDoNotAllocate() {
        let input = LiveMIDIInput(destinationCount: 2, sampleRate: 48_000, periodFrames: 128)
        let producers = [input.addProducer(name: "a", delivery: .timestamped(lookAheadFrames: 300)),
                         input.addProducer(name: "b", delivery: .immediate)]
        producers[1].calibrate(producerTime: 0, monotonic: MonotonicClock.now())
        let receiver = CollectingReceiver()
        input.destinations[0].deliverEvents(before: 32, to: receiver)  // first period: the clock's first line
        input.update()
        seqplay_alloc_count_begin()
        var sampleTime: Int64 = 64
        for round in 0..<200 {
            let note = UInt8(round % 100)
            producers[0].push(.noteOn(channel: 0, note: note, velocity: 90), at: .monotonic(MonotonicClock.now()), from: 7)
            producers[1].push(.noteOn(channel: 1, note: note, velocity: 90), at: .producerClock(1_000), from: 9, to: 1)
            producers[0].push(.noteOff(channel: 0, note: note, velocity: 0), at: .immediate, from: 7)
            if round % 50 == 0 { producers[1].sourceLeft(9) }
            input.destinations[0].deliverEvents(before: sampleTime + 32, to: receiver)
            input.destinations[1].deliverEvents(before: sampleTime + 32, to: receiver)
            sampleTime += 64
            receiver.clear()
        }
        let counts = seqplay_alloc_count_end()
        XCTAssertGreaterThanOrEqual(receiver.total, 3 * 200, "every message went through")
        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(counts.frees, 0)
    }

    /// Plays destination 0 in `blockCount` blocks of 64 frames, each taking the events due before
    /// its middle: each note-on's note and the first frame of the block it came in.
    private func noteOnsByBlock(_ input: LiveMIDIInput, blockCount: Int64) -> [(note: UInt8, block: Int64)] {
        var delivered: [(note: UInt8, block: Int64)] = []
        let receiver = CollectingReceiver()
        for block in Int64(0)..<blockCount {
            input.destinations[0].deliverEvents(before: block * 64 + 32, to: receiver)
            for case .noteOn(_, let note, _) in receiver.messages { delivered.append((note, block * 64)) }
            receiver.clear()
        }
        return delivered
    }
}
