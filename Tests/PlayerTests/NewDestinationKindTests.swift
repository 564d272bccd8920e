import MIDICore
import MIDIFile
import Player
import XCTest

/// Adding a kind of destination is one type in one module: `StampLog` below, defined in this test
/// alone, conforms to `SongDestination`, and a `MusicPlayer` plays a song to it as it plays to the
/// sampler, a kernel queue, a network session or a JACK MIDI port.
final class NewDestinationKindTests: XCTestCase {
    /// A destination that keeps what it is sent: each event with its sample stamp, the delivery that
    /// brought it, and where each delivery ended.
    private final class StampLog: SongDestination {
        var received: [(event: SongEvent, delivery: Int)] = []
        var deliveryEnds: [Int64] = []

        func receive(_ event: SongEvent) { received.append((event, deliveryEnds.count)) }
        func endOfDelivery(before sampleTime: Int64) { deliveryEnds.append(sampleTime) }
    }

    /// 480 PPQ at 120 BPM: at 48 kHz a tick is 50 samples. Track 1 on port 0, track 2 on port 1
    /// (drums on channel 10), track 3 muted by the options.
    private func song() -> MusicSequence {
        let conductor = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))), endOfTrack(1920)])
        let first = MusicTrack(events: [TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 5))), on(0, 0, 60),
                                        off(480, 0, 60), on(480, 0, 64), off(960, 0, 64)])
        let second = MusicTrack(events: [TimedEvent(tick: 0, .meta(.port(1))), cc(240, 1, 7, 100), on(1000, 9, 36), off(1100, 9, 36)])
        let third = MusicTrack(events: [on(100, 2, 50), cc(150, 2, 10, 64), off(200, 2, 50)])
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [conductor, first, second, third])
    }

    func testAPlayerPlaysASongToADestinationTypeOfItsOwn() throws {
        let player = try MusicPlayer(sequence: song(), sampleRate: 48_000, options: SongOptions(transpose: 2, mutedTracks: [3]))
        let log = StampLog()
        // Pulled as a renderer pulls it: before each 64-frame block, the events before its middle.
        let blocks = Array(stride(from: Int64(0), through: player.durationInSamples + 64, by: 64))
        for block in blocks { player.deliverEvents(before: block + 32, to: log) }

        // The song as it must arrive: exact sample stamps (tick × 50), tracks and ports, notes
        // transposed but the drums, the muted track's notes left out (its controller kept).
        let expected: [(sample: Int64, track: Int, port: UInt8, message: MIDIMessage)] = [
            (0, 1, 0, .programChange(channel: 0, program: 5)),
            (0, 1, 0, .noteOn(channel: 0, note: 62, velocity: 100)),
            (7_500, 3, 0, .controlChange(channel: 2, controller: 10, value: 64)),
            (12_000, 2, 1, .controlChange(channel: 1, controller: 7, value: 100)),
            (24_000, 1, 0, .noteOff(channel: 0, note: 62, velocity: 0)),
            (24_000, 1, 0, .noteOn(channel: 0, note: 66, velocity: 100)),
            (48_000, 1, 0, .noteOff(channel: 0, note: 66, velocity: 0)),
            (50_000, 2, 1, .noteOn(channel: 9, note: 36, velocity: 100)),
            (55_000, 2, 1, .noteOff(channel: 9, note: 36, velocity: 0)),
        ]
        let events = log.received.map(\.event)
        XCTAssertEqual(events.map(\.message), expected.map(\.message), "the song's messages, in order")
        XCTAssertEqual(events.map(\.sampleTime), expected.map(\.sample), "each stamped with its exact sample")
        XCTAssertEqual(events.map(\.track), expected.map(\.track))
        XCTAssertEqual(events.map(\.port), expected.map(\.port))

        // One delivery per pull, each ended once; every event came in the pull its time falls in.
        XCTAssertEqual(log.deliveryEnds, blocks.map { $0 + 32 })
        for (event, delivery) in log.received {
            XCTAssertLessThan(event.sampleTime, log.deliveryEnds[delivery])
            XCTAssertGreaterThanOrEqual(event.sampleTime, delivery == 0 ? 0 : log.deliveryEnds[delivery - 1])
        }
        XCTAssertEqual(player.durationInSamples, 96_000)
        XCTAssertTrue(player.isFinished)
    }

    /// An endpoint that is both a `MIDIReceiver` (MIDI now) and a `SongDestination`, as `SamplerNode`
    /// is, is played to as a destination: it gets the events with their stamps.
    func testAnEndpointThatIsAlsoADestinationGetsTheStampedEvents() throws {
        final class Both: MIDIReceiver, SongDestination {
            var messages: [MIDIMessage] = []
            var stamps: [Int64] = []
            func receive(_ message: MIDIMessage) { messages.append(message) }
            func receive(_ event: SongEvent) { stamps.append(event.sampleTime) }
        }
        let player = try MusicPlayer(sequence: song(), sampleRate: 48_000)
        let both = Both()
        player.deliverEvents(before: .max, to: both)
        XCTAssertEqual(both.messages, [])
        XCTAssertEqual(both.stamps.count, 11)
        XCTAssertEqual(both.stamps, both.stamps.sorted())
    }

    /// A sampler's receiver (`MIDIReceiver.receive(_:at:)`) gets what a destination gets, through the
    /// player's one delivery: the same messages at the same times.
    func testAReceiverGetsTheDestinationsEventsWithTheirTimes() throws {
        final class TimedLog: MIDIReceiver {
            var received: [(message: MIDIMessage, time: Int64)] = []
            func receive(_ message: MIDIMessage) { XCTFail("untimed \(message)") }
            func receive(_ message: MIDIMessage, at sampleTime: Int64) { received.append((message, sampleTime)) }
        }
        let options = SongOptions(transpose: 2, mutedTracks: [3])
        let log = SongEventLog(), receiver = TimedLog()
        try MusicPlayer(sequence: song(), sampleRate: 48_000, options: options).deliverEvents(before: .max, to: log)
        let player = try MusicPlayer(sequence: song(), sampleRate: 48_000, options: options)
        for block in stride(from: Int64(0), through: player.durationInSamples + 64, by: 64) {
            player.deliverEvents(before: block + 32, to: receiver)
        }
        XCTAssertEqual(receiver.received.map(\.message), log.events.map(\.message))
        XCTAssertEqual(receiver.received.map(\.time), log.events.map(\.sampleTime))
    }

    /// A second cursor through a player's schedule (a JACK MIDI port beside the sampler) hands out the
    /// same events from its own position, and follows the first player's mutes.
    func testASecondCursorSharesTheScheduleAndTheMutes() throws {
        let player = try MusicPlayer(sequence: song(), sampleRate: 48_000, options: SongOptions(transpose: 2, mutedTracks: [3]))
        let cursor = MusicPlayer(sharingScheduleOf: player)
        XCTAssertEqual(cursor.durationInSamples, player.durationInSamples)
        XCTAssertEqual(cursor.scheduledEventCount, player.scheduledEventCount)

        // Track 1 muted through the first player at sample 20,000: both end note 62 there and hold back note 66.
        let heard = SongEventLog(), followed = SongEventLog()
        player.deliverEvents(before: 20_000, to: heard)
        cursor.deliverEvents(before: 10_000, to: followed)
        cursor.deliverEvents(before: 20_000, to: followed)
        XCTAssertFalse(player.isTrackMuted(1))
        player.setTrack(1, muted: true)
        XCTAssertTrue(cursor.isTrackMuted(1))
        player.deliverEvents(before: .max, to: heard)
        XCTAssertFalse(cursor.isFinished, "each has its own position")
        cursor.deliverEvents(before: .max, to: followed)
        XCTAssertEqual(followed.events, heard.events)
        XCTAssertTrue(followed.events.contains(SongEvent(sampleTime: 12_000, track: 1, port: 0,
                                                         message: .noteOff(channel: 0, note: 62, velocity: 0))),
                      "the muted track's note ends where playback had got to")
        XCTAssertFalse(followed.events.contains { $0.message == .noteOn(channel: 0, note: 66, velocity: 100) })

        // A seek moves one cursor only.
        cursor.seek(toSample: 0)
        XCTAssertTrue(player.isFinished)
        XCTAssertFalse(cursor.isFinished)
    }
}
