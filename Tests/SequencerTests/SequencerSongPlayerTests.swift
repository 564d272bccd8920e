import ALSA
import MIDICore
import MIDIFile
import SequencerPlayback
import XCTest

/// A song played to a port arrives complete, in order, and on time by the receiver's own kernel clock.
final class SequencerSongPlayerTests: XCTestCase {
    func testSongArrivesInOrderWithinOneMillisecondOfItsExactTimes() throws {
        try requireSequencer()
        let listener = try SequencerClient(name: "seqplay song listener")
        let clock = try SequencerQueue(client: listener, name: "listener clock")
        let input = try listener.createPort(name: "in", capabilities: .input, timestampQueue: clock)
        try clock.start()

        var events = [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))), TimedEvent(tick: 1000, .meta(.tempo(microsecondsPerQuarter: 300_000)))]
        for index in 0..<300 {  // more than the player's preroll
            events.append(TimedEvent(tick: Int64(index * 10), .midi(.noteOn(channel: 0, note: UInt8(index % 128), velocity: 1))))
        }
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: events)])
        let schedule = SequencerSchedule(sequence: sequence, destinations: [input.address])
        let player = try SequencerSongPlayer(schedule: schedule, client: try SequencerClient(name: "seqplay song player"))
        XCTAssertTrue(try player.play())

        let received = try receive(schedule.entries.count, from: listener)
        XCTAssertEqual(received.map(\.message), schedule.entries.map(\.message))
        let stamps = received.compactMap { event -> Int64? in
            if case .realTime(let nanoseconds) = event.timestamp { return Int64(nanoseconds) }
            return nil
        }
        XCTAssertEqual(stamps.count, schedule.entries.count)
        let offset = stamps[0] - Int64(schedule.entries[0].nanoseconds)
        let worst = zip(stamps, schedule.entries).map { abs($0 - offset - Int64($1.nanoseconds)) }.max() ?? .max
        XCTAssertLessThan(worst, 1_000_000, "worst timestamp error \(worst) ns")
    }
}
