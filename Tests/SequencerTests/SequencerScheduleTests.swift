import ALSA
import MIDICore
import MIDIFile
import SequencerPlayback
import XCTest

/// Flattening a sequence for the sequencer: exact times, aplaymidi-style port routing, MIDI clock.
final class SequencerScheduleTests: XCTestCase {
    private let a = PortAddress(client: 14, port: 0)
    private let b = PortAddress(client: 16, port: 0)

    /// 480 PPQ, 120 BPM then 160 BPM from tick 960; track 1 on port 0, track 2 switches to port 1.
    private func song() -> MusicSequence {
        let conductor = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
                                            TimedEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 375_000)))])
        let first = MusicTrack(events: [TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 90))),
                                        TimedEvent(tick: 1440, .midi(.noteOff(channel: 0, note: 60, velocity: 0)))])
        let second = MusicTrack(events: [TimedEvent(tick: 0, .meta(.port(1))),
                                         TimedEvent(tick: 480, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7])),
                                         TimedEvent(tick: 960, .midi(.controlChange(channel: 1, controller: 7, value: 5)))])
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [conductor, first, second])
    }

    func testEventsGetExactTimesAndFollowPortMetaEvents() throws {
        let schedule = try SequencerSchedule(sequence: song(), destinations: [a, b])
        XCTAssertEqual(schedule.entries.map(\.nanoseconds), [0, 500_000_000, 1_000_000_000, 1_375_000_000])
        XCTAssertEqual(schedule.entries.map(\.message), [
            .noteOn(channel: 0, note: 60, velocity: 90), .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),
            .controlChange(channel: 1, controller: 7, value: 5), .noteOff(channel: 0, note: 60, velocity: 0),
        ])
        XCTAssertEqual(schedule.entries.map(\.destination), [a, b, b, a])
    }

    func testEndTickCutsTheSongAndEndsTheNotesStillSounding() throws {
        // Tick 1200 is 1 s (960 ticks at 120 BPM) + 240 ticks at 160 BPM = 1.1875 s.
        let schedule = try SequencerSchedule(sequence: song(), destinations: [a, b], midiClock: true, endTick: 1200)
        XCTAssertEqual(schedule.endNanoseconds, 1_187_500_000)
        XCTAssertEqual(schedule.entries.map(\.nanoseconds), [0, 500_000_000, 1_000_000_000, 1_187_500_000])
        XCTAssertEqual(schedule.entries.last?.message, .noteOff(channel: 0, note: 60, velocity: 0))
        XCTAssertEqual(schedule.entries.last?.destination, a)
        let clocks = schedule.events.filter { $0.message == .timingClock && $0.destination == a }
        XCTAssertEqual(clocks.count, 1200 / 20 + 1, "one clock every 20 ticks, from 0 to the end tick")
        XCTAssertEqual(schedule.events.filter { $0.message == .stop }.map(\.nanoseconds), [1_187_500_000, 1_187_500_000])
    }

    func testTrackDestinationsOverrideThePortMetaEvent() throws {
        let schedule = try SequencerSchedule(sequence: song(), destinations: [a, b], trackDestinations: [2: a, 1: b])
        XCTAssertEqual(schedule.entries.map(\.destination), [b, a, a, b])
    }

    func testMIDIClockRunsAt24PerQuarterWithPositionStartAndStop() throws {
        let schedule = try SequencerSchedule(sequence: song(), destinations: [a], midiClock: true)
        let events = Array(schedule.events)
        let clocks = events.filter { $0.message == .timingClock }
        // 1440 ticks = 3 quarters: clocks at 0, 20, …, 1440 ticks.
        XCTAssertEqual(clocks.count, 3 * 24 + 1)
        XCTAssertEqual(clocks[24].nanoseconds, 500_000_000)
        XCTAssertEqual(clocks[48].nanoseconds, 1_000_000_000)
        XCTAssertEqual(clocks[60].nanoseconds, 1_187_500_000)
        XCTAssertEqual(Array(events.prefix(2).map(\.message)), [.songPosition(0), .start])
        XCTAssertEqual(events.last?.message, .stop)
        XCTAssertEqual(events.last?.nanoseconds, 1_375_000_000)
        // The clock at a song event's time goes first; all in time order; the song's events all there.
        XCTAssertEqual(events.firstIndex { $0.message == .controlChange(channel: 1, controller: 7, value: 5) },
                       events.firstIndex { $0.nanoseconds == 1_000_000_000 && $0.message == .timingClock }.map { $0 + 1 })
        XCTAssertEqual(events.map(\.nanoseconds), events.map(\.nanoseconds).sorted())
        XCTAssertEqual(events.filter { $0.message != .timingClock }.count, schedule.entries.count + 3)
        XCTAssertEqual(events.count, schedule.entries.count + 3 + 73)
    }

    func testFormat2PatternsPlayOneAfterAnother() throws {
        let pattern = MusicTrack(events: [TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 90))),
                                          TimedEvent(tick: 480, .midi(.noteOff(channel: 0, note: 60, velocity: 0)))])
        let sequence = MusicSequence(format: 2, division: .ticksPerQuarter(480), tracks: [pattern, pattern])
        let schedule = try SequencerSchedule(sequence: sequence, destinations: [a])
        // 120 BPM: each pattern lasts half a second; the second starts where the first ends.
        XCTAssertEqual(schedule.entries.map(\.nanoseconds), [0, 500_000_000, 500_000_000, 1_000_000_000])
        XCTAssertEqual(schedule.endNanoseconds, 1_000_000_000)
    }

    func testSongsLongerThan24HoursAreRefused() {
        // 25 hours of quarter notes at 1 s each; then a tick far beyond anything a clock can hold.
        for tick: Int64 in [25 * 3600 * 480, Int64.max / 2] {
            let track = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000))),
                                            TimedEvent(tick: tick, .midi(.noteOn(channel: 0, note: 60, velocity: 1)))])
            let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [track])
            XCTAssertThrowsError(try SequencerSchedule(sequence: sequence, destinations: [a], midiClock: true)) { error in
                guard case .songTooLong(let seconds) = error as? SequencerScheduleError else {
                    return XCTFail("unexpected error \(error)")
                }
                XCTAssertGreaterThanOrEqual(seconds, 25 * 3600)
                XCTAssertTrue("\(error)".contains("up to 24 hours"), "\(error)")
            }
        }
    }

    func testClockOfALongFastSongIsGeneratedAsItPlays() throws {
        // 23 hours at 1 µs per quarter: about 2 × 10¹² clocks, far too many to hold; the first come at once.
        let quarters: Int64 = 23 * 3600 * 1_000_000
        let track = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1))),
                                        TimedEvent(tick: quarters * 24, .midi(.noteOn(channel: 0, note: 60, velocity: 1)))])
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(24), tracks: [track])
        let schedule = try SequencerSchedule(sequence: sequence, destinations: [a, b], midiClock: true)
        XCTAssertEqual(schedule.endNanoseconds, UInt64(quarters) * 1000)
        let first = Array(schedule.events.prefix(8))
        XCTAssertEqual(first.map(\.message), [.songPosition(0), .start, .songPosition(0), .start,
                                              .timingClock, .timingClock, .timingClock, .timingClock])
        XCTAssertEqual(first.map(\.destination), [a, a, b, b, a, b, a, b])
        XCTAssertEqual(first.suffix(4).map(\.nanoseconds), [0, 0, 42, 42])  // 1000 ns / 24, rounded
    }
}
