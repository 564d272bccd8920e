import MIDICore
import MIDIFile
import Sessions
import XCTest

/// Clock time in a take becomes ticks at the take's tempo; pauses are cut out and end held notes.
final class TakeRecorderTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    /// The channel messages of the one track, with their ticks.
    private func messages(_ take: TakeRecorder, endingAt time: UInt64? = nil) -> [(Int64, MIDIMessage)] {
        take.sequence(endingAt: time).tracks[0].events.compactMap {
            if case .midi(let message) = $0.event { return ($0.tick, message) }
            return nil
        }
    }

    func testClockTimeBecomesTicksAtTheTempo() {
        var take = TakeRecorder(ticksPerQuarter: 480, beatsPerMinute: 90)
        take.record(.noteOn(channel: 0, note: 60, velocity: 100), at: 0)
        take.record(.noteOff(channel: 0, note: 60, velocity: 0), at: 2 * second / 3)  // one beat at 90 BPM
        take.record(.timingClock, at: second)
        let got = messages(take)
        XCTAssertEqual(got.map(\.0), [0, 480])
        XCTAssertEqual(got.map(\.1), [.noteOn(channel: 0, note: 60, velocity: 100), .noteOff(channel: 0, note: 60, velocity: 0)])
        let events = take.sequence().tracks[0].events
        XCTAssertEqual(events.first?.event, .meta(.tempo(microsecondsPerQuarter: 666_667)))
        XCTAssertEqual(events.last, TimedEvent(tick: 480, .meta(.endOfTrack)))
    }

    func testPauseIsCutOutAndEventsInsideItAreDropped() {
        var take = TakeRecorder(ticksPerQuarter: 480, beatsPerMinute: 120)
        take.record(.noteOn(channel: 0, note: 60, velocity: 100), at: 0)
        take.record(.noteOff(channel: 0, note: 60, velocity: 0), at: second / 4)
        take.pause(at: second)
        take.record(.noteOn(channel: 0, note: 61, velocity: 100), at: 2 * second)
        take.resume(at: 4 * second)
        take.record(.noteOn(channel: 0, note: 62, velocity: 100), at: 4 * second + second / 2)
        take.record(.noteOff(channel: 0, note: 62, velocity: 0), at: 5 * second)
        // After the 3 s pause, 4.5 s is 1.5 s into the take: 3 beats.
        XCTAssertEqual(messages(take).map(\.0), [0, 240, 1440, 1920])
        XCTAssertEqual(messages(take).map { $0.1.isNoteOn ? 1 : 0 }, [1, 0, 1, 0])
        XCTAssertEqual(take.pausedSeconds, 3, accuracy: 1e-9)
    }

    func testNotesHeldAtAPauseOrTheEndAreEnded() {
        var take = TakeRecorder()
        take.record(.noteOn(channel: 2, note: 64, velocity: 90), at: 0)
        take.pause(at: second)
        XCTAssertEqual(messages(take).last?.1, .noteOff(channel: 2, note: 64, velocity: 0))
        XCTAssertEqual(messages(take).last?.0, 960)
        take.resume(at: 2 * second)
        take.record(.noteOn(channel: 0, note: 50, velocity: 90), at: 3 * second)
        let ended = messages(take, endingAt: 4 * second)
        XCTAssertEqual(ended.last?.1, .noteOff(channel: 0, note: 50, velocity: 0))
        XCTAssertEqual(ended.last?.0, 2880)
    }

    /// Check 8 of Scripts/test-sequencer-peers: a note-off arriving 67 µs after its note-on was stamped
    /// by the kernel queue clock 1 ms earlier (the clock stepped back at a late timer interrupt) and was
    /// written a tick before the note-on. Arrival order wins: both land on the note-on's tick, in order.
    func testAStampEarlierThanTheLastOneKeepsArrivalOrder() throws {
        var take = TakeRecorder(ticksPerQuarter: 480, beatsPerMinute: 120)
        take.record(.noteOn(channel: 0, note: 0x47, velocity: 80), at: 6 * second)
        take.record(.noteOn(channel: 0, note: 0x48, velocity: 80), at: 7 * second + 1_000_000)
        take.record(.noteOff(channel: 0, note: 0x48, velocity: 0), at: 7 * second + 10_000)
        take.pause(at: 7 * second)
        let got = messages(take)
        XCTAssertEqual(got.map(\.0), [5760, 6721, 6721, 6721])
        XCTAssertEqual(got.map(\.1), [.noteOn(channel: 0, note: 0x47, velocity: 80),
                                       .noteOn(channel: 0, note: 0x48, velocity: 80),
                                       .noteOff(channel: 0, note: 0x48, velocity: 0),
                                       .noteOff(channel: 0, note: 0x47, velocity: 0)])
        let bytes = try MIDIFileWriter.write(take.sequence())
        XCTAssertEqual(try MIDIFileReader.read(bytes: bytes, name: "take.mid").sequence.tracks[0].events.compactMap {
            if case .midi(let message) = $0.event { return message }
            return nil
        }, got.map(\.1))
    }

    func testTheFileReadsBackWithTheTimeSignature() throws {
        var take = TakeRecorder(ticksPerQuarter: 96, timeSignature: TimeSignature("6/8")!)
        take.record(.programChange(channel: 0, program: 5), at: 0)
        take.record(.systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]), at: second)
        let bytes = try MIDIFileWriter.write(take.sequence())
        let read = try MIDIFileReader.read(bytes: bytes, name: "take.mid").sequence
        XCTAssertEqual(read.division, .ticksPerQuarter(96))
        XCTAssertTrue(read.tracks[0].events.contains(TimedEvent(tick: 0, .meta(.timeSignature(
            numerator: 6, denominatorPower: 3, clocksPerClick: 24, thirtySecondsPerQuarter: 8)))))
        XCTAssertTrue(read.tracks[0].events.contains(TimedEvent(tick: 192, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7]))))
        XCTAssertNil(TimeSignature("3/5"))
    }
}
