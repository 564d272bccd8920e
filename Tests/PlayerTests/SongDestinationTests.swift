import Foundation
import MIDICore
import MIDIFile
import Player
import SeqplaySupport
import XCTest

/// The one scheduler as every destination gets it: the sampler (samples, block-exact), ports and the
/// network (nanoseconds): the same events, in the same order, at the same times within each unit;
/// SMF port routing, track selection and MIDI clock.
final class SongDestinationTests: XCTestCase {
    /// 480 PPQ, 120 BPM then 160 BPM from tick 960; track 1 on port 0, track 2 switches to port 1.
    private func song() -> MusicSequence {
        let conductor = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
                                            TimedEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 375_000)))])
        let first = MusicTrack(events: [on(0, 0, 60), off(1440, 0, 60)])
        let second = MusicTrack(events: [TimedEvent(tick: 0, .meta(.port(1))),
                                         TimedEvent(tick: 480, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7])),
                                         cc(960, 1, 7, 5)])
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [conductor, first, second])
    }

    /// Everything `player` hands out, pulled in one go.
    private func events(of player: MusicPlayer) -> [SongEvent] {
        let log = SongEventLog()
        player.deliverEvents(before: .max, to: log)
        return log.events
    }

    private func nanosecondPlayer(_ sequence: MusicSequence, _ settings: SongOptions = SongOptions()) throws -> MusicPlayer {
        try MusicPlayer(sequence: sequence, sampleRate: MusicPlayer.nanosecondRate, options: settings)
    }

    func testEventsGetExactTimesAndTheirTracksPort() throws {
        let events = events(of: try nanosecondPlayer(song()))
        XCTAssertEqual(events.map(\.sampleTime), [0, 500_000_000, 1_000_000_000, 1_375_000_000])
        XCTAssertEqual(events.map(\.message), [
            .noteOn(channel: 0, note: 60, velocity: 100), .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),
            .controlChange(channel: 1, controller: 7, value: 5), .noteOff(channel: 0, note: 60, velocity: 0),
        ])
        XCTAssertEqual(events.map(\.port), [0, 1, 1, 0])
        XCTAssertEqual(events.map(\.track), [1, 2, 2, 1])
    }

    func testEndCutsTheSongAndEndsEveryNoteOnStillSounding() throws {
        // Two Note Ons of the same note, one Note Off before the cut: one Note Off at the cut, on the note's port.
        let track = MusicTrack(events: [TimedEvent(tick: 0, .meta(.port(2))), on(0, 3, 64), on(100, 3, 64), off(200, 3, 64),
                                        on(300, 3, 65), endOfTrack(2000)])
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [track])
        // Tick 1200 at 120 BPM is 1.25 s.
        let events = events(of: try nanosecondPlayer(sequence, SongOptions(end: .tick(1200))))
        XCTAssertEqual(events.suffix(2).map(\.message), [.noteOff(channel: 3, note: 64, velocity: 0), .noteOff(channel: 3, note: 65, velocity: 0)])
        XCTAssertEqual(events.suffix(2).map(\.sampleTime), [1_250_000_000, 1_250_000_000])
        XCTAssertEqual(Set(events.map(\.port)), [2])
        XCTAssertEqual(events.count, 6)
    }

    func testMIDIClockRunsAt24PerQuarterWithPositionStartAndStop() throws {
        var settings = SongOptions()
        settings.midiClock = true
        let events = events(of: try nanosecondPlayer(song(), settings))
        let clocks = events.filter { $0.message == .timingClock }
        // 1440 ticks = 3 quarters: clocks at 0, 20, …, 1440 ticks.
        XCTAssertEqual(clocks.count, 3 * 24 + 1)
        XCTAssertEqual(clocks[24].sampleTime, 500_000_000)
        XCTAssertEqual(clocks[48].sampleTime, 1_000_000_000)
        XCTAssertEqual(clocks[60].sampleTime, 1_187_500_000)
        XCTAssertTrue(clocks.allSatisfy(\.isClock))
        XCTAssertEqual(Array(events.prefix(2).map(\.message)), [.songPosition(0), .start])
        XCTAssertEqual(events.last?.message, .stop)
        XCTAssertEqual(events.last?.sampleTime, 1_375_000_000)
        // The clock at a song event's time goes first; all in time order; the song's events all there.
        XCTAssertEqual(events.firstIndex { $0.message == .controlChange(channel: 1, controller: 7, value: 5) },
                       events.firstIndex { $0.sampleTime == 1_000_000_000 && $0.message == .timingClock }.map { $0 + 1 })
        XCTAssertEqual(events.map(\.sampleTime), events.map(\.sampleTime).sorted())
        XCTAssertEqual(events.count, 4 + 3 + 73)
    }

    func testClockFollowsStartAndLoopJumps() throws {
        var settings = SongOptions(start: .tick(240), loop: LoopRegion(from: .tick(480), to: .tick(960), count: 2))
        settings.midiClock = true
        let events = events(of: try nanosecondPlayer(song(), settings)).filter(\.isClock)
        // Starting at tick 240 (2 sixteenths): position 2, Continue; at the jump back to tick 480: Stop, position 4, Continue.
        XCTAssertEqual(Array(events.prefix(3).map(\.message)), [.songPosition(2), .continue, .timingClock])
        let jump = try XCTUnwrap(events.firstIndex { $0.message == .stop })
        XCTAssertEqual(Array(events[jump..<jump + 3].map(\.message)), [.stop, .songPosition(4), .continue])
        // 240…960 then 480…1440 ticks: 36 + 48 + 1 clocks, 20 ticks apart as played.
        XCTAssertEqual(events.filter { $0.message == .timingClock }.count, 36 + 48 + 1)
        XCTAssertEqual(events.last?.message, .stop)
    }

    func testClockOfALongFastSongIsGeneratedAsItPlays() throws {
        // 23 hours at 1 µs per quarter: about 2 × 10¹² clocks, far too many to hold; the first come at once.
        let quarters: Int64 = 23 * 3600 * 1_000_000
        let track = MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1))),
                                        TimedEvent(tick: quarters * 24, .midi(.noteOn(channel: 0, note: 60, velocity: 1)))])
        var settings = SongOptions()
        settings.midiClock = true
        let player = try nanosecondPlayer(MusicSequence(format: 0, division: .ticksPerQuarter(24), tracks: [track]), settings)
        XCTAssertEqual(player.durationInSamples, quarters * 1000)
        let log = SongEventLog()
        player.deliverEvents(before: 84, to: log)
        let first = log.events
        XCTAssertEqual(first.map(\.message), [.songPosition(0), .start, .timingClock, .timingClock, .timingClock])
        XCTAssertEqual(first.map(\.sampleTime), [0, 0, 0, 41, 83])  // 1000 ns / 24, rounded down
    }

    /// Tracks chosen for one destination and the rest for another together play the whole song.
    func testTrackSelectionsSplitTheSong() throws {
        let whole = events(of: try nanosecondPlayer(song()))
        let mine = events(of: try nanosecondPlayer(song(), SongOptions(tracks: [2])))
        let others = events(of: try nanosecondPlayer(song(), SongOptions(tracks: [0, 1])))
        XCTAssertEqual(mine, whole.filter { $0.track == 2 })
        XCTAssertEqual(others, whole.filter { $0.track != 2 })
    }

    /// Start, loop, rate, transpose, mutes and solos: the sampler (pulled in 64-sample blocks, as it
    /// renders) and a nanosecond destination (ports, network) get the same messages in the same order,
    /// each scheduled at the same exact time rounded down to its unit.
    func testSamplerAndNanosecondDestinationsGetTheSameEvents() throws {
        let sequence = try XCTUnwrap(Self.demoSong())
        let settings = SongOptions(transpose: -2, rate: 1.3, start: .seconds(3), end: .seconds(40),
                                        loop: LoopRegion(from: .seconds(10), to: .seconds(20), count: 3))
        func configured(_ player: MusicPlayer) -> MusicPlayer {
            player.setTrack(2, muted: true)
            player.setChannel(9, muted: true)
            return player
        }
        let sampleRate = 44_100
        let sampler = configured(try MusicPlayer(sequence: sequence, sampleRate: sampleRate, options: settings))
        let nanoseconds = configured(try nanosecondPlayer(sequence, settings))
        var heard: [(block: Int64, event: SongEvent)] = []
        for block in stride(from: Int64(0), through: sampler.durationInSamples + 64, by: 64) {
            let log = SongEventLog()
            sampler.deliverEvents(before: block + 32, to: log)
            heard += log.events.map { (block, $0) }
        }
        let sent = events(of: nanoseconds)
        XCTAssertGreaterThan(sent.count, 500)
        XCTAssertEqual(heard.map(\.event.message), sent.map(\.message))
        XCTAssertEqual(heard.map(\.event.track), sent.map(\.track))
        var worst: Double = 0
        for (sample, stamped) in zip(heard, sent) {
            let exact = Double(stamped.sampleTime) * Double(sampleRate) / 1e9
            XCTAssertEqual(Double(sample.event.sampleTime), exact, accuracy: 1, "scheduled within one sample")
            XCTAssertLessThanOrEqual(abs(Double(sample.block) - exact), 33, "played at the nearest block boundary")
            worst = max(worst, abs(Double(sample.event.sampleTime) - exact))
        }
        print("sampler vs ports/network: \(sent.count) events, same order; worst scheduled difference \(worst) samples")
    }

    /// The network's dispatcher thread sends every event stamped with its exact time from the
    /// nanosecond schedule, ahead of that time; it takes the events of each tick's window in one
    /// delivery, not one due time at a time.
    func testRealtimeSequencerStampsEveryEventWithItsScheduledTime() throws {
        var notes: [TimedEvent] = []
        for index in 0..<40 {
            let tick = Int64(index) * 12, note = UInt8(40 + index)
            notes += [on(tick, 0, note), off(tick + 6, 0, note)]
        }
        let track = MusicTrack(events: notes)
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [track])  // 40 notes in 0.5 s
        let settings = SongOptions(transpose: 5, rate: 2)
        let destination = RecordingDestination()
        let sequencer = RealtimeSequencer(player: try nanosecondPlayer(sequence, settings), destination: destination, lookahead: 0.02)
        // Song time 0 is now: the first tick's window (the lookahead, 20 ms) holds the first seven groups.
        sequencer.start(at: MonotonicClock.now())
        sequencer.waitUntilFinished()
        let expected = events(of: try nanosecondPlayer(sequence, settings))
        let sent = destination.received
        XCTAssertEqual(sent.map(\.event.message), expected.map(\.message))
        XCTAssertEqual(sent.map(\.event.track), expected.map(\.track))
        XCTAssertEqual(sent.map(\.time), expected.map { sequencer.startTime + UInt64($0.sampleTime) })
        // One delivery per window that holds events, not one per group of simultaneous events: every
        // event of a delivery is due before its window's end.
        let groups = Set(expected.map(\.sampleTime)).count
        XCTAssertGreaterThan(destination.deliveryEnds.count, 0)
        XCTAssertLessThan(destination.deliveryEnds.count, groups)
        XCTAssertGreaterThanOrEqual(Set(sent.filter { $0.delivery == 0 }.map(\.time)).count, 6, "the first window holds the first groups")
        for event in sent { XCTAssertLessThan(event.time, UInt64(destination.deliveryEnds[event.delivery])) }
        let early = sent.filter { $0.delivery > 0 }.map { Int64(bitPattern: $0.time &- $0.sentAt) }.sorted()
        print("network dispatcher: \(sent.count) events in \(destination.deliveryEnds.count) deliveries, those after the first window "
              + "sent ahead of their time by median \(early[early.count / 2] / 1000) µs, least \(early[0] / 1000) µs")
    }

    /// The first demo song of the repository.
    static func demoSong() -> MusicSequence? {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Songs/pachelbel-canon.mid").path
        return try? MIDIFileReader.read(contentsOf: path).sequence
    }
}

/// Records what a `RealtimeSequencer` sends (events stamped with monotonic time), when, and in which
/// delivery (each delivery's end, in monotonic time).
private final class RecordingDestination: SongDestination, @unchecked Sendable {
    var received: [(event: SongEvent, time: UInt64, sentAt: UInt64, delivery: Int)] = []
    var deliveryEnds: [Int64] = []

    func receive(_ event: SongEvent) {
        received.append((event, UInt64(event.sampleTime), MonotonicClock.now(), deliveryEnds.count))
    }

    func endOfDelivery(before sampleTime: Int64) {
        deliveryEnds.append(sampleTime)
    }
}
