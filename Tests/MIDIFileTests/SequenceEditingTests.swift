import XCTest
import MIDICore
import MIDIFile

final class SequenceEditingTests: XCTestCase {
    private func note(_ tick: Int64, _ channel: UInt8, _ key: UInt8, on: Bool = true) -> TimedEvent {
        TimedEvent(tick: tick, .midi(on ? .noteOn(channel: channel, note: key, velocity: 100) : .noteOff(channel: channel, note: key, velocity: 0)))
    }

    private func program(_ tick: Int64, _ channel: UInt8, _ program: UInt8) -> TimedEvent {
        TimedEvent(tick: tick, .midi(.programChange(channel: channel, program: program)))
    }

    private func name(_ text: String) -> TimedEvent { TimedEvent(tick: 0, .meta(.text(.trackName, Array(text.utf8)))) }
    private func endOfTrack(_ tick: Int64) -> TimedEvent { TimedEvent(tick: tick, .meta(.endOfTrack)) }

    func testInsertKeepsTickOrderAndEndOfTrackLast() {
        var track = MusicTrack(events: [note(0, 0, 60), note(480, 0, 60, on: false), endOfTrack(480)])
        track.insert(note(240, 0, 64))
        track.insert(note(480, 0, 64, on: false)) // same tick: after the existing event, before End of Track
        track.insert(note(960, 0, 67))            // beyond the end: End of Track moves with it
        XCTAssertEqual(track.events, [note(0, 0, 60), note(240, 0, 64), note(480, 0, 60, on: false),
                                      note(480, 0, 64, on: false), note(960, 0, 67), endOfTrack(960)])
        XCTAssertEqual(track.durationInTicks, 960)

        track.removeEvents { _ in true }
        XCTAssertEqual(track.events, [endOfTrack(960)])

        var sequence = MusicSequence(tracks: [MusicTrack(), track])
        sequence.insert(note(10, 1, 50), intoTrack: 0)
        XCTAssertEqual(sequence.tracks[0].events, [note(10, 1, 50)])
        XCTAssertEqual(sequence.durationInTicks, 960)
    }

    func testMergeToFormat0IsStableByTrackIndex() {
        let first = MusicTrack(events: [name("Conductor"), TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 400_000))), endOfTrack(100)])
        let second = MusicTrack(events: [note(0, 1, 60), note(480, 1, 60, on: false), endOfTrack(480)])
        let third = MusicTrack(events: [note(0, 2, 40), note(480, 2, 40, on: false), endOfTrack(960)])
        let merged = MusicSequence(format: 1, tracks: [first, second, third]).mergedToFormat0()
        XCTAssertEqual(merged.format, 0)
        XCTAssertEqual(merged.tracks.count, 1)
        XCTAssertEqual(merged.tracks[0].events, [
            name("Conductor"), TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 400_000))),
            note(0, 1, 60), note(0, 2, 40), note(480, 1, 60, on: false), note(480, 2, 40, on: false), endOfTrack(960),
        ])
    }

    func testSplitByChannelMakesAConductorAndOneTrackPerChannel() {
        let sysEx = TimedEvent(tick: 0, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7]))
        let track = MusicTrack(events: [
            name("Song"), sysEx, program(0, 9, 0), program(0, 0, 40), note(0, 9, 36), note(0, 0, 60),
            note(240, 9, 36, on: false), note(480, 0, 60, on: false), endOfTrack(960),
        ])
        let split = MusicSequence(format: 0, tracks: [track]).splitByChannel()
        XCTAssertEqual(split.format, 1)
        XCTAssertEqual(split.tracks.count, 3)
        XCTAssertEqual(split.tracks[0].events, [name("Song"), sysEx, endOfTrack(960)])
        XCTAssertEqual(split.tracks[1].events, [name("Ch 1 Violin"), program(0, 0, 40), note(0, 0, 60), note(480, 0, 60, on: false), endOfTrack(960)])
        XCTAssertEqual(split.tracks[2].events, [name("Ch 10 Drums"), program(0, 9, 0), note(0, 9, 36), note(240, 9, 36, on: false), endOfTrack(960)])
        // Merging back gives the same events, conductor first at each tick.
        XCTAssertEqual(Set(split.mergedToFormat0().tracks[0].events.filter { if case .midi = $0.event { true } else { false } }),
                       Set(track.events.filter { if case .midi = $0.event { true } else { false } }))
    }

    func testTrackSummaries() {
        let track = MusicTrack(events: [
            name("Piano"), TimedEvent(tick: 0, .meta(.text(.instrumentName, Array("Steinway".utf8)))),
            program(0, 0, 0), program(0, 3, 33), program(10, 0, 0), note(0, 0, 60), note(0, 3, 40),
            TimedEvent(tick: 5, .midi(.noteOn(channel: 3, note: 40, velocity: 0))), note(480, 0, 60, on: false), endOfTrack(480),
        ])
        let summary = MusicSequence(tracks: [track, MusicTrack()]).trackSummaries
        XCTAssertEqual(summary.count, 2)
        XCTAssertEqual(summary[0].name, "Piano")
        XCTAssertEqual(summary[0].instrumentName, "Steinway")
        XCTAssertEqual(summary[0].channels, [0, 3])
        XCTAssertEqual(summary[0].programs, [ProgramUse(channel: 0, program: 0), ProgramUse(channel: 3, program: 33)])
        XCTAssertEqual(summary[0].programs.map(\.instrument), ["Acoustic Grand Piano", "Electric Bass (finger)"])
        XCTAssertEqual(summary[0].noteCount, 2)
        XCTAssertEqual(summary[0].eventCount, 10)
        XCTAssertNil(summary[1].name)
        XCTAssertEqual(summary[1].noteCount, 0)
    }

    func testConcatenatingPatternsPlaysFormat2PatternsInOrder() {
        let slow = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000))), note(0, 0, 60), endOfTrack(480)])
        let plain = MusicTrack(events: [note(0, 0, 62), endOfTrack(960)])
        let sequence = MusicSequence(format: 2, division: .ticksPerQuarter(480), tracks: [slow, plain])
        let joined = sequence.concatenatingPatterns()
        XCTAssertEqual(joined.format, 1)
        XCTAssertEqual(joined.tracks[1].events.last, endOfTrack(1440))
        XCTAssertTrue(joined.tracks[1].events.contains(note(480, 0, 62)))
        let map = TempoMap(sequence: joined)
        // One second for the first pattern (60 BPM), then one second at the default 120 BPM.
        XCTAssertEqual(map.seconds(atTick: 480), 1)
        XCTAssertEqual(map.durationInSeconds, 2)
        XCTAssertEqual(sequence.mergedToFormat0().tracks[0].events.last, endOfTrack(1440))
    }
}
