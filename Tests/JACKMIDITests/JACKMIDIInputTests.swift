import AllocationCounter
import Atomics
import Sampler
import Foundation
import JACK
import JACKTestSupport
import Sessions
import RenderTestSupport
import XCTest

/// `midi_in` against a real server: a test client sends note-ons at known server frames, seqplay's
/// sampler plays them through its JACK output, a recorder captures that output; each click must
/// start at its frame plus `JACKMIDIInput.latencyFrames`, within 64 samples, at blocks 64, 256 and
/// 1024. And JACK's process thread does not allocate while it reads the port and plays the notes.
final class JACKMIDIInputTests: XCTestCase {
    override func setUpWithError() throws {
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
    }

    /// Note k at 0.5 s + k × 0.25 s, moved by a different amount within the 64-sample grid each time.
    private static let phases: [Int64] = [0, 1, 31, 32, 33, 63, 100, 127, 200, 255, 500, 777]
    private static let noteFrames = phases.enumerated().map { 24_000 + Int64($0.offset) * 12_000 + $0.element }

    func testNotesSentToMidiInSoundAtTheirFramesPlusTheFixedLatencyAtBlockSizes64_256And1024() throws {
        for blockFrames in [64, 256, 1024] {
            let server = try JACKTestServer(blockFrames: blockFrames)
            let sender = try JACKTestMIDISender(name: "keys", serverName: server.name, schedule: Self.noteFrames.flatMap {
                [($0, [0x90, 60, 127]), ($0 + 2_400, [0x80, 60, 0])]
            })
            let recorder = try JACKTestRecorder(name: "rec", serverName: server.name, capacity: 48_000 * 6)
            let (session, _) = try startSession(server: server)
            usleep(100_000)
            sender.arm()
            while !sender.isDone { usleep(20_000) }
            usleep(300_000)
            let summary = session.stop()
            XCTAssertEqual(sender.missedCount, 0)
            XCTAssertEqual(summary.lateEvents, 0, "block \(blockFrames)")
            let onsets = OnsetTiming.onsets(in: recorder.samples(channel: 0)).map { recorder.firstFrameTime + Int64($0) }
            let expected = Self.noteFrames.map { sender.baseFrameTime + $0 + Int64(JACKMIDIInput.latencyFrames) }
            XCTAssertEqual(onsets.count, expected.count, "block \(blockFrames): every note heard once")
            let errors = zip(onsets, expected).map { $0 - $1 }
            let jitter = (errors.max() ?? 0) - (errors.min() ?? 0)
            print("JACK midi_in, block \(blockFrames): onset − (sent frame + \(JACKMIDIInput.latencyFrames)) = \(errors) samples; "
                  + "min \(errors.min() ?? 0), max \(errors.max() ?? 0), jitter \(jitter)")
            XCTAssertTrue(errors.allSatisfy { abs($0) < 64 }, "block \(blockFrames): \(errors)")
            XCTAssertLessThanOrEqual(jitter, 64, "block \(blockFrames)")
        }
    }

    func testTheProcessCallbackDoesNotAllocateWhileItReadsMidiInAndPlaysTheNotes() throws {
        let server = try JACKTestServer(blockFrames: 128)
        var schedule: [(offset: Int64, bytes: [UInt8])] = []
        for index in 0..<60 {
            let frame = Int64(index) * 1_200 + 6_000, note = UInt8(48 + index % 24)
            schedule += [(frame, [0x90, note, 100]), (frame + 300, [0xB0, 1, 64]), (frame + 600, [0x80, note, 0])]
        }
        let sender = try JACKTestMIDISender(name: "keys", serverName: server.name, schedule: schedule)
        let (session, counter) = try startSession(server: server, countingAllocations: true)
        usleep(100_000)
        sender.arm()
        // The first notes, controllers and note-offs take the Swift runtime's one-time paths (type
        // metadata, witness tables); counting starts after them.
        while sender.sentCount < 15 { usleep(5_000) }
        let counted = try XCTUnwrap(counter)
        counted.start()
        while !sender.isDone { usleep(20_000) }
        usleep(100_000)
        let summary = session.stop()
        XCTAssertNil(summary.failure)
        print("JACK midi_in: \(counted.countedCycles) cycles counted, \(counted.allocations) allocations")
        XCTAssertGreaterThanOrEqual(counted.countedCycles, 100)
        XCTAssertEqual(counted.allocations, 0, "allocations in JACK's process thread while reading midi_in and playing")
    }

    /// seqplay's side: a live sampler session on a JACK output connected to `rec`, `midi_in` connected from `keys`.
    private func startSession(server: JACKTestServer, countingAllocations: Bool = false) throws -> (LiveSamplerSession, CycleAllocationCounter?) {
        let output = try JACKOutput(settings: JACKOutputSettings(serverName: server.name, connection: .matching("^rec:")))
        let counter = countingAllocations ? CycleAllocationCounter() : nil
        if let counter { output.jack.addCycleHandler(counter) }
        var configuration = LiveSamplerConfiguration(soundFonts: ["SoundFonts/click.sf2"], output: .opened(output))
        configuration.sampler = SamplerSettings(reverb: .init(isEnabled: false), chorus: .init(isEnabled: false))
        configuration.inputs = [try JACKMIDIInput(driver: output.jack, connecting: "^keys:")]
        let session = try LiveSamplerSession(configuration)
        try session.start()
        return (session, counter)
    }
}

/// Counts allocations on JACK's process thread from one cycle's start to the next (the MIDI ports,
/// the render, the copy to the ports, libjack's hand-over), once `start()` has been called.
final class CycleAllocationCounter: JACKCycleHandler, @unchecked Sendable {
    private let started = ManagedAtomic(false)
    private var counting = false
    private(set) var allocations = 0
    private(set) var countedCycles = 0

    func start() { started.store(true, ordering: .releasing) }

    func beginCycle(frameCount: Int, sampleTime: Int64) {
        if counting {
            allocations += seqplay_alloc_count_end().allocations
            countedCycles += 1
        }
        counting = started.load(ordering: .acquiring)
        if counting { seqplay_alloc_count_begin() }
    }
}
