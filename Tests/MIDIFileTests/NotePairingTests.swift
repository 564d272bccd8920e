import XCTest
import MIDICore
import MIDIFile

/// `NotePairing`'s rule: first in first out per channel and key, velocity-0 Note Ons end notes,
/// stray ends ignored, notes never ended closed at the end by channel, key, start.
final class NotePairingTests: XCTestCase {
    private func on(_ tick: Int64, _ channel: UInt8, _ key: UInt8, _ velocity: UInt8 = 100) -> TimedEvent {
        TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: key, velocity: velocity)))
    }

    private func off(_ tick: Int64, _ channel: UInt8, _ key: UInt8) -> TimedEvent {
        TimedEvent(tick: tick, .midi(.noteOff(channel: channel, note: key, velocity: 64)))
    }

    func testOverlappingSameKeyNotesEndOldestFirst() {
        let track = MusicTrack(events: [on(0, 0, 60, 10), on(100, 0, 60, 20), off(200, 0, 60), on(300, 0, 60, 0),
                                        TimedEvent(tick: 400, .meta(.endOfTrack))])
        let notes = MusicSequence(tracks: [track]).pairedNotes()
        XCTAssertEqual(notes, [PairedNote(start: 0, end: 200, channel: 0, key: 60, velocity: 10, track: 0),
                               PairedNote(start: 100, end: 300, channel: 0, key: 60, velocity: 20, track: 0)])
    }

    func testStrayEndsAreIgnoredAndChannelsAreApart() {
        let track = MusicTrack(events: [off(0, 0, 60), on(10, 0, 60), on(10, 1, 60), off(20, 1, 60), off(30, 0, 60), off(40, 0, 60),
                                        TimedEvent(tick: 50, .meta(.endOfTrack))])
        let notes = MusicSequence(tracks: [track]).pairedNotes()
        XCTAssertEqual(notes.map { [$0.start, $0.end, Int64($0.channel)] }, [[10, 20, 1], [10, 30, 0]])
    }

    func testNotesNeverEndedCloseAtTheEndByChannelKeyAndStart() {
        let first = MusicTrack(events: [on(0, 2, 64), on(5, 1, 70), on(10, 1, 62), on(20, 1, 62), TimedEvent(tick: 100, .meta(.endOfTrack))])
        let second = MusicTrack(events: [on(0, 0, 40), off(50, 0, 40), TimedEvent(tick: 300, .meta(.endOfTrack))])
        let notes = MusicSequence(tracks: [first, second]).pairedNotes()
        XCTAssertEqual(notes.map { [$0.start, $0.end, Int64($0.channel), Int64($0.key), Int64($0.track)] },
                       [[10, 300, 1, 62, 0], [20, 300, 1, 62, 0], [5, 300, 1, 70, 0], [0, 300, 2, 64, 0], [0, 50, 0, 40, 1]])
        XCTAssertEqual(MusicSequence(tracks: [first]).pairedNotes(endTick: 1000).map(\.end), [1000, 1000, 1000, 1000])
    }

    func testAllNotesOffOfAChannelEndsItsNotesByKey() {
        var pairing = NotePairing<Int>()
        pairing.start(channel: 3, key: 70, 0)
        pairing.start(channel: 3, key: 50, 1)
        pairing.start(channel: 4, key: 50, 2)
        pairing.start(channel: 3, key: 50, 3)
        XCTAssertEqual(pairing.endAll(channel: 3).map { [Int($0.key), $0.start] }, [[50, 1], [50, 3], [70, 0]])
        XCTAssertNil(pairing.end(channel: 3, key: 50))
        XCTAssertEqual(pairing.pair(.noteOn(channel: 4, note: 50, velocity: 0)) { _, _, _ in -1 }?.start, 2)
        XCTAssertNil(pairing.pair(.programChange(channel: 4, program: 1)) { _, _, _ in -1 })
        XCTAssertTrue(pairing.endAll().isEmpty)
    }
}
