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

    func testEventsGetExactTimesAndFollowPortMetaEvents() {
        let schedule = SequencerSchedule(sequence: song(), destinations: [a, b])
        XCTAssertEqual(schedule.entries.map(\.nanoseconds), [0, 500_000_000, 1_000_000_000, 1_375_000_000])
        XCTAssertEqual(schedule.entries.map(\.message), [
            .noteOn(channel: 0, note: 60, velocity: 90), .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),
            .controlChange(channel: 1, controller: 7, value: 5), .noteOff(channel: 0, note: 60, velocity: 0),
        ])
        XCTAssertEqual(schedule.entries.map(\.destination), [a, b, b, a])
    }

    func testTrackDestinationsOverrideThePortMetaEvent() {
        let schedule = SequencerSchedule(sequence: song(), destinations: [a, b], trackDestinations: [2: a, 1: b])
        XCTAssertEqual(schedule.entries.map(\.destination), [b, a, a, b])
    }

    func testMIDIClockRunsAt24PerQuarterWithPositionStartAndStop() {
        let schedule = SequencerSchedule(sequence: song(), destinations: [a], midiClock: true)
        let clocks = schedule.entries.filter { $0.message == .timingClock }
        // 1440 ticks = 3 quarters: clocks at 0, 20, …, 1440 ticks.
        XCTAssertEqual(clocks.count, 3 * 24 + 1)
        XCTAssertEqual(clocks[24].nanoseconds, 500_000_000)
        XCTAssertEqual(clocks[48].nanoseconds, 1_000_000_000)
        XCTAssertEqual(clocks[60].nanoseconds, 1_187_500_000)
        XCTAssertEqual(Array(schedule.entries.prefix(2).map(\.message)), [.songPosition(0), .start])
        XCTAssertEqual(schedule.entries.last?.message, .stop)
        XCTAssertEqual(schedule.entries.last?.nanoseconds, 1_375_000_000)
    }
}
