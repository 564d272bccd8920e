import ALSA
import Foundation
import LiveInput
import Sessions
import MIDICore
import SeqplaySupport
import XCTest

/// Collects what a live-input destination delivers.
private final class Collector: MIDIReceiver {
    var messages: [MIDIMessage] = []
    func receive(_ message: MIDIMessage) { messages.append(message) }
}

/// ALSA input ports as a live-input producer, against the real sequencer (runs where /dev/snd/seq
/// exists: Scripts/test-alsa runs it in the alsa-vm).
final class SequencerLiveProducerTests: XCTestCase {
    /// Pulls destination `index` of `input` like a render thread until `count` messages came or 10 s passed.
    private func pull(_ input: LiveMIDIInput, _ index: Int, into collector: Collector, until count: Int) {
        let deadline = Date().addingTimeInterval(10)
        var sampleTime: Int64 = 0
        while collector.messages.count < count, Date() < deadline {
            sampleTime += 64
            input.destinations[index].deliverEvents(before: sampleTime, to: collector)
            usleep(1_000)
        }
    }

    func testEachPortFeedsItsDestinationAndADisconnectedSourceIsReleased() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: SequencerClient.devicePath), "no ALSA sequencer here")
        let input = LiveMIDIInput(destinationCount: 2, sampleRate: 48_000, periodFrames: 256)
        let host = try SequencerClient(name: "live producer test")
        let producer = try SequencerLiveProducer(client: host, portNames: ["in-1", "in-2"], feeding: input, delivery: .immediate)
        try producer.start()
        defer { producer.stop() }
        let keyboard = try SequencerClient(name: "live producer keyboard")
        let keys = try keyboard.createPort(name: "keys", capabilities: .output)
        try keyboard.connect(from: keys.address, to: producer.ports[1].address)
        try keyboard.send(.noteOn(channel: 2, note: 60, velocity: 100), from: keys)
        try keyboard.send(.noteOn(channel: 2, note: 64, velocity: 100), from: keys)
        try keyboard.send(.noteOff(channel: 2, note: 64, velocity: 0), from: keys)
        try keyboard.send(.controlChange(channel: 2, controller: 64, value: 127), from: keys)
        let second = Collector(), first = Collector()
        pull(input, 1, into: second, until: 4)
        XCTAssertEqual(second.messages, [.noteOn(channel: 2, note: 60, velocity: 100), .noteOn(channel: 2, note: 64, velocity: 100),
                                         .noteOff(channel: 2, note: 64, velocity: 0), .controlChange(channel: 2, controller: 64, value: 127)])
        try keyboard.disconnect(from: keys.address, to: producer.ports[1].address)
        pull(input, 1, into: second, until: 6)
        XCTAssertEqual(second.messages.dropFirst(4), [.noteOff(channel: 2, note: 60, velocity: 0),
                                                      .controlChange(channel: 2, controller: 64, value: 0)])
        input.destinations[0].deliverEvents(before: 1 << 40, to: first)
        XCTAssertEqual(first.messages, [], "port in-1 had no source")
    }

    func testKernelTimestampsBecomeMonotonicTimeThroughTheCalibration() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: SequencerClient.devicePath), "no ALSA sequencer here")
        let input = LiveMIDIInput(destinationCount: 1, sampleRate: 48_000, periodFrames: 256)
        let host = try SequencerClient(name: "live producer clock test")
        let producer = try SequencerLiveProducer(client: host, portNames: ["in"], feeding: input,
                                                 delivery: .timestamped(lookAheadFrames: 4_800))
        try producer.start()
        defer { producer.stop() }
        let keyboard = try SequencerClient(name: "live producer clock keyboard")
        let keys = try keyboard.createPort(name: "keys", capabilities: .output)
        try keyboard.connect(from: keys.address, to: producer.ports[0].address)
        // The render thread's first period: sample 0 now.
        let start = MonotonicClock.now()
        input.clock.observePeriod(startingAt: 0, monotonic: start)
        usleep(100_000)
        let sent = MonotonicClock.now()
        try keyboard.send(.noteOn(channel: 0, note: 60, velocity: 100), from: keys)
        // Played a look-ahead after the sample being rendered when it arrived.
        let collector = Collector()
        var sampleTime: Int64 = 0
        while collector.messages.isEmpty, sampleTime < 48_000 * 10 {
            sampleTime += 64
            // As a sound card's render thread renders: each block at its time or later, never before.
            let due = start + UInt64(Double(sampleTime) / 48_000 * 1e9)
            while MonotonicClock.now() < due { usleep(500) }
            input.destinations[0].deliverEvents(before: sampleTime + 32, to: collector)
        }
        let expected = Double(sent - start) / 1e9 * 48_000 + 4_800
        print(String(format: "kernel-stamped note played at sample %lld, sent at %.0f + look-ahead", sampleTime, expected))
        XCTAssertEqual(collector.messages, [.noteOn(channel: 0, note: 60, velocity: 100)])
        // Arrival is after the send (by the kernel's and the input thread's delay): never before it.
        XCTAssertGreaterThanOrEqual(Double(sampleTime), expected - 64)
    }
}
