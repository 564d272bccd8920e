import MIDICore
import MIDIFile
import Player
import XCTest

/// The schedule keeps each event packed (a few bytes, times relative to a run's first): every kind of
/// message, track, port and time comes back as it went in, times far apart in nanoseconds included.
final class CompactScheduleTests: XCTestCase {
    func testEveryMessageKindTrackPortAndTimeComesBackAsScheduled() throws {
        let messages: [MIDIMessage] = [
            .noteOn(channel: 15, note: 127, velocity: 1), .noteOff(channel: 15, note: 127, velocity: 127),
            .polyPressure(channel: 1, note: 60, pressure: 99), .controlChange(channel: 9, controller: 121, value: 0),
            .programChange(channel: 9, program: 127), .channelPressure(channel: 0, pressure: 1),
            .pitchBend(channel: 2, value: 16383), .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),
            .systemExclusive([0xF0, 0x41, 0xF7]), .timeCodeQuarterFrame(0x7F), .songPosition(16383), .songSelect(5),
            .timingClock, .start, .continue, .stop, .activeSensing, .systemReset, .tuneRequest,
        ]
        // Two tracks on ports 0 and 3; events 0.5 s apart, then one 30 s later (past 32 bits of nanoseconds).
        var tracks = [MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000)))]),
                      MusicTrack(events: [TimedEvent(tick: 0, .meta(.port(3)))])]
        func track(_ index: Int) -> Int { index < 2 ? 0 : index % 2 }
        var tick: Int64 = 0
        for (index, message) in messages.enumerated() {
            tracks[track(index)].events.append(TimedEvent(tick: tick, .midi(message)))
            tick += index == messages.count - 2 ? 28_800 : 480
        }
        tracks[0].events.append(TimedEvent(tick: tick, .meta(.endOfTrack)))
        let sequence = MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: tracks)
        for rate in [44_100, MusicPlayer.nanosecondRate] {
            let player = try MusicPlayer(sequence: sequence, sampleRate: rate)
            let log = SongEventLog()
            player.deliverEvents(before: .max, to: log)
            let delivered = log.events
            let expected = messages.enumerated().map { index, message -> SongEvent in
                let ticks = Int64(index) * 480 + (index == messages.count - 1 ? 28_800 - 480 : 0)
                return SongEvent(sampleTime: ticks * Int64(rate) / 960, track: track(index), port: track(index) == 1 ? 3 : 0, message: message)
            }
            XCTAssertEqual(delivered, expected, "rate \(rate)")
        }
    }

    /// A message whose values do not fit its wire bytes (a channel past 15, a data value past 127) is not packed:
    /// the schedule keeps every event whole, and each comes back as scheduled.
    func testAMessageItsWireBytesCannotHoldComesBackUnchanged() throws {
        let messages: [MIDIMessage] = [
            .controlChange(channel: 1, controller: 7, value: 100), .controlChange(channel: 20, controller: 7, value: 100),
            .controlChange(channel: 1, controller: 200, value: 1), .programChange(channel: 1, program: 128),
            .pitchBend(channel: 0, value: 40_000), .songSelect(0x80), .controlChange(channel: 1, controller: 10, value: 0),
        ]
        let events = [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000)))]
            + messages.enumerated().map { TimedEvent(tick: Int64($0.offset) * 480, .midi($0.element)) }
            + [TimedEvent(tick: Int64(messages.count) * 480, .meta(.endOfTrack))]
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: events)])
        let player = try MusicPlayer(sequence: sequence, sampleRate: 44_100)
        let log = SongEventLog()
        player.deliverEvents(before: .max, to: log)
        let delivered = log.events
        XCTAssertEqual(delivered.map(\.message), messages)
        XCTAssertEqual(delivered.map(\.sampleTime), (0..<Int64(messages.count)).map { $0 * 22_050 })
    }
}
