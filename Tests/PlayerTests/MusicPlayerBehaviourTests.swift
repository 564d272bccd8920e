import XCTest
import MIDICore
import MIDIFile
import Player

final class MusicPlayerBehaviourTests: XCTestCase {
    /// 120 BPM, 480 ticks per quarter, 48 kHz: one quarter note is 24000 samples.
    private func sequence(_ tracks: [[TimedEvent]], format: Int = 1) -> MusicSequence {
        MusicSequence(format: format, division: .ticksPerQuarter(480), tracks: tracks.map { MusicTrack(events: $0) })
    }

    private func noteOns(_ messages: [MIDIMessage]) -> [MIDIMessage] { messages.filter(\.isNoteOn) }

    /// Every note-on sent is matched by a later note-off for the same channel and key.
    private func assertNoHangingNotes(_ messages: [MIDIMessage], file: StaticString = #filePath, line: UInt = #line) {
        var held: [UInt16: Int] = [:]
        for message in messages {
            switch message {
            case .noteOn(let c, let n, let v) where v > 0: held[UInt16(c) << 8 | UInt16(n), default: 0] += 1
            case .noteOn(let c, let n, _), .noteOff(let c, let n, _): held[UInt16(c) << 8 | UInt16(n), default: 0] -= 1
            default: break
            }
        }
        XCTAssertEqual(held.filter { $0.value > 0 }.count, 0, "hanging notes: \(held.filter { $0.value > 0 })", file: file, line: line)
    }

    /// A few bytes can declare centuries (slow tempo, huge deltas) and a loop count can be huge: such
    /// playbacks are refused before anything is built, not scheduled until memory runs out.
    func testPlaybacksLongerThanADayAreRefused() throws {
        let slow = [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 0xFF_FFFF))), on(0, 0, 60),
                    off(0x0FFF_FFFF, 0, 60), endOfTrack(0x0FFF_FFFF)]
        XCTAssertThrowsError(try MusicPlayer(sequence: sequence([slow]), sampleRate: 48_000)) { error in
            guard case SongOptionsError.tooLong(let seconds) = error else { return XCTFail("\(error)") }
            XCTAssertGreaterThan(seconds, 24 * 3600)
        }
        let song = sequence([[on(0, 0, 60), off(480, 0, 60), endOfTrack(960)]])  // one second
        var settings = SongOptions()
        settings.loop = LoopRegion(from: .tick(0), to: .tick(960), count: 1_000_000_000)
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: settings))
        settings.loop = LoopRegion(from: .tick(0), to: .tick(960), count: 80_000)  // 22 hours: allowed
        XCTAssertEqual(try MusicPlayer(sequence: song, sampleRate: 48_000, options: settings).durationInSeconds, 80_000, accuracy: 0.001)
    }

    func testEventsArriveAtTheirSampleTimesAndMetasAreNotSent() throws {
        let player = try MusicPlayer(sequence: sequence([[
            TimedEvent(tick: 0, .meta(.text(.trackName, Array("Piano".utf8)))), on(0, 0, 60), off(480, 0, 60), on(720, 0, 62), off(960, 0, 62), endOfTrack(960),
        ]]), sampleRate: 48_000)
        XCTAssertEqual(player.durationInSamples, 48_000)
        XCTAssertEqual(player.durationInSeconds, 1)
        let received = render(player).received
        XCTAssertEqual(received.map(\.message), [on(0, 0, 60), off(0, 0, 60), on(0, 0, 62), off(0, 0, 62)].compactMap { if case .midi(let m) = $0.event { m } else { nil } })
        // 24000 = 375 blocks exactly; 36000 lies on 562.5 blocks: the nearer boundaries are 32 samples away, the later one wins.
        XCTAssertEqual(received.map(\.sample), [0, 24_000, 36_032, 48_000])
        XCTAssertTrue(player.isFinished)
    }

    func testSysExAndEscapesPassThrough() throws {
        let player = try MusicPlayer(sequence: sequence([[
            TimedEvent(tick: 0, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7])),
            TimedEvent(tick: 0, .sysEx([0x41, 0x10])),          // no F7: one is added
            TimedEvent(tick: 0, .escape([0xF8])),               // a complete real-time message
            TimedEvent(tick: 0, .escape([0xF0, 0x43, 0xF7])),   // a complete SysEx
            TimedEvent(tick: 0, .escape([0x43, 0x12])),         // a continuation packet: not a message
            TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 400_000))),
            endOfTrack(10),
        ]]), sampleRate: 48_000)
        XCTAssertEqual(render(player).messages, [
            .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]), .systemExclusive([0xF0, 0x41, 0x10, 0xF7]),
            .timingClock, .systemExclusive([0xF0, 0x43, 0xF7]),
        ])
    }

    func testTransposeLeavesDrumsAndDropsNotesOutOfRange() throws {
        let player = try MusicPlayer(sequence: sequence([[
            on(0, 0, 60), on(0, 9, 36), on(0, 1, 126), off(480, 0, 60), off(480, 9, 36), off(480, 1, 126), endOfTrack(480),
        ]]), sampleRate: 48_000, options: SongOptions(transpose: 2))
        XCTAssertEqual(render(player).messages, [
            .noteOn(channel: 0, note: 62, velocity: 100), .noteOn(channel: 9, note: 36, velocity: 100),
            .noteOff(channel: 0, note: 62, velocity: 0), .noteOff(channel: 9, note: 36, velocity: 0),
        ])
    }

    func testRateScalesTempo() throws {
        let song = sequence([[on(0, 0, 60), off(480, 0, 60), endOfTrack(960)]])
        let fast = try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(rate: 2))
        XCTAssertEqual(fast.durationInSamples, 24_000)
        XCTAssertEqual(render(fast).received.last?.sample, 12_032) // 12000 is half-way between boundaries
        let slow = try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(rate: 0.5))
        XCTAssertEqual(slow.durationInSamples, 96_000)
        XCTAssertEqual(render(slow).received.last?.sample, 48_000)
    }

    func testStartChasesStateAndEndEndsHeldNotes() throws {
        let gmOn = TimedEvent(tick: 0, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7]))
        let player = try MusicPlayer(sequence: sequence([[
            gmOn, cc(0, 0, 7, 50), TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 5))),
            cc(100, 0, 7, 90), TimedEvent(tick: 200, .midi(.pitchBend(channel: 0, value: 9000))),
            on(300, 0, 60), off(600, 0, 60), // ends before the start: not sent
            on(900, 0, 64), off(2000, 0, 64), // sounding before the start: not restarted
            on(1200, 0, 67), off(2000, 0, 67), // held past the end: ended there
            endOfTrack(2400),
        ]]), sampleRate: 48_000, options: SongOptions(start: .tick(960), end: .barBeatTick(BarBeatTick(bar: 1, beat: 4))))
        // Ticks 960..<1440: one quarter note.
        XCTAssertEqual(player.durationInSamples, 24_000)
        let received = render(player).received
        XCTAssertEqual(received.map(\.message), [
            .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]), .programChange(channel: 0, program: 5),
            .controlChange(channel: 0, controller: 7, value: 90), .pitchBend(channel: 0, value: 9000),
            .noteOn(channel: 0, note: 67, velocity: 100), .noteOff(channel: 0, note: 67, velocity: 0),
        ])
        XCTAssertEqual(received.map(\.sample), [0, 0, 0, 0, 12_032, 24_000])
    }

    func testStartInSecondsAndNotesAfterIt() throws {
        let player = try MusicPlayer(sequence: sequence([[on(0, 0, 60), off(240, 0, 60), on(960, 0, 62), off(1200, 0, 62), endOfTrack(1440)]]),
                                     sampleRate: 48_000, options: SongOptions(start: .seconds(0.5)))
        let received = render(player).received
        XCTAssertEqual(received.map(\.message), [.noteOn(channel: 0, note: 62, velocity: 100), .noteOff(channel: 0, note: 62, velocity: 0)])
        XCTAssertEqual(received.map(\.sample), [24_000, 36_032])
    }

    func testLoopRepeatsTheRegionAndEndsNotesAtEachJump() throws {
        // Bar 2 (ticks 1920..<3840) plays three times; a note held across the loop end is cut there.
        let player = try MusicPlayer(sequence: sequence([[
            cc(0, 0, 7, 100), on(1920, 0, 60), off(2400, 0, 60), cc(2400, 0, 7, 20), on(3000, 0, 64), off(4000, 0, 64), endOfTrack(5760),
        ]]), sampleRate: 48_000, options: SongOptions(loop: LoopRegion(from: .barBeatTick(BarBeatTick(bar: 2)), to: .tick(3840), count: 3)))
        // 5760 + 2 × 1920 ticks = 20 quarter notes.
        XCTAssertEqual(player.durationInSamples, 20 * 24_000)
        let received = render(player).received
        XCTAssertEqual(noteOns(received.map(\.message)).count, 6) // 60 and 64, once per pass
        assertNoHangingNotes(received.map(\.message))
        let loopEnds = received.filter { $0.message == .noteOff(channel: 0, note: 64, velocity: 0) }.map(\.sample)
        // Cut at the first two jumps (8 and 12 quarters), then its own note-off 160 ticks into bar 3.
        let quarter: Int64 = 24_000
        XCTAssertEqual(loopEnds, [8 * quarter, 12 * quarter, 16 * quarter + 160 * 50])
        // Each jump back restores the volume of bar 2's start.
        let volumes: [UInt8] = received.compactMap { entry -> UInt8? in
            guard case .controlChange(_, 7, let value) = entry.message else { return nil }
            return value
        }
        XCTAssertEqual(volumes, [100, 20, 100, 20, 100, 20])
    }

    func testSongTickFollowsTheStartTheLoopRepeatsAndTheRate() throws {
        // From tick 960 at twice the speed; bar 2 (ticks 1920..<3840) plays twice.
        let player = try MusicPlayer(sequence: sequence([[on(0, 0, 60), off(5760, 0, 60), endOfTrack(5760)]]),
                                     sampleRate: 48_000,
                                     options: SongOptions(rate: 2, start: .tick(960),
                                                                loop: LoopRegion(from: .tick(1920), to: .tick(3840), count: 2)))
        let quarter: Int64 = 12_000 // 120 BPM at rate 2: a quarter note every 0.25 s
        let expected: [(sample: Int64, tick: Int64)] = [
            (0, 960), (2 * quarter, 1920), (5 * quarter + quarter / 2, 3600), // first time through bar 2
            (6 * quarter, 1920), (7 * quarter, 2400),                          // the repeat
            (10 * quarter, 3840), (11 * quarter, 4320),                        // on past the loop
        ]
        for (sample, tick) in expected {
            XCTAssertEqual(player.songTick(atSample: sample), tick, "player sample \(sample)")
        }
    }

    func testMutingATrackMidNoteEndsItAndHoldsBackItsNotes() throws {
        let player = try MusicPlayer(sequence: sequence([
            [on(0, 0, 60), off(1920, 0, 60), on(1920, 0, 62), off(2400, 0, 62), endOfTrack(2400)],
            [on(0, 1, 40), off(2400, 1, 40), endOfTrack(2400)],
        ]), sampleRate: 48_000)
        let receiver = render(player, until: 24_000)
        player.setTrack(0, muted: true)
        XCTAssertTrue(player.isTrackMuted(0))
        _ = render(player, from: 24_064, into: receiver)
        let afterMute = receiver.received.filter { $0.sample >= 24_064 }.map(\.message)
        XCTAssertEqual(afterMute, [.noteOff(channel: 0, note: 60, velocity: 0), .noteOff(channel: 1, note: 40, velocity: 0)])
        assertNoHangingNotes(receiver.messages)
    }

    func testSoloAndChannelMute() throws {
        let song = sequence([
            [on(0, 0, 60), off(480, 0, 60), endOfTrack(480)],
            [on(0, 1, 61), off(480, 1, 61), on(0, 2, 62), off(480, 2, 62), endOfTrack(480)],
        ])
        let soloTrack = try MusicPlayer(sequence: song, sampleRate: 48_000)
        soloTrack.setTrack(1, soloed: true)
        soloTrack.setChannel(2, muted: true)
        XCTAssertEqual(noteOns(render(soloTrack).messages), [.noteOn(channel: 1, note: 61, velocity: 100)])

        let soloChannel = try MusicPlayer(sequence: song, sampleRate: 48_000)
        soloChannel.setChannel(0, soloed: true)
        soloChannel.setChannel(2, soloed: true)
        let messages = render(soloChannel).messages
        XCTAssertEqual(noteOns(messages), [.noteOn(channel: 0, note: 60, velocity: 100), .noteOn(channel: 2, note: 62, velocity: 100)])
        XCTAssertEqual(messages.count, 4) // the muted note's note-off is held back too
    }

    /// The options' mutes and solos apply from the first event, by the rule the setters follow
    /// (`SongOptions.sounds`), and can be changed while playing.
    func testMutesAndSolosOfTheOptionsApplyFromTheStart() throws {
        let song = sequence([
            [on(0, 0, 60), off(480, 0, 60), endOfTrack(480)],
            [on(0, 1, 61), off(480, 1, 61), on(0, 2, 62), off(480, 2, 62), endOfTrack(480)],
        ])
        let options = SongOptions(soloedTracks: [1], mutedChannels: [2])
        let player = try MusicPlayer(sequence: song, sampleRate: 48_000, options: options)
        XCTAssertTrue(player.isTrackSoloed(1))
        XCTAssertTrue(player.isChannelMuted(2))
        XCTAssertEqual(player.options, options)
        XCTAssertEqual(noteOns(render(player).messages), [.noteOn(channel: 1, note: 61, velocity: 100)])
        // The value type answers as the player plays.
        let heard = [(0, 0), (1, 1), (1, 2)].filter { options.isAudible(track: $0.0, channel: $0.1) }
        XCTAssertEqual(heard.map(\.0), [1])
        XCTAssertEqual(heard.map(\.1), [1])
        XCTAssertFalse(SongOptions(mutedTracks: [0], soloedTracks: [0]).isTrackAudible(0), "a muted track stays silent when soloed")
        XCTAssertTrue(SongOptions(soloedChannels: [3]).isChannelAudible(3))
        XCTAssertFalse(SongOptions(soloedChannels: [3]).isChannelAudible(4))

        player.setTrack(1, soloed: false)
        player.reset()
        XCTAssertEqual(noteOns(render(player).messages), [.noteOn(channel: 0, note: 60, velocity: 100), .noteOn(channel: 1, note: 61, velocity: 100)])
    }

    /// Tracks and channels the song does not have are refused when the player is made.
    func testMutesAndSolosOfMissingTracksOrChannelsAreRefused() throws {
        let song = sequence([[on(0, 0, 60), endOfTrack(480)], [endOfTrack(480)]])
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(mutedTracks: [2]))) {
            XCTAssertEqual($0 as? SongOptionsError, .noSuchTrack(2, trackCount: 2))
            XCTAssertEqual("\($0)", "there is no track 2: the song's tracks are 0...1 (see `seqplay info`)")
        }
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(soloedTracks: [-1]))) {
            XCTAssertEqual($0 as? SongOptionsError, .noSuchTrack(-1, trackCount: 2))
        }
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(soloedChannels: [16]))) {
            XCTAssertEqual($0 as? SongOptionsError, .noSuchChannel(16))
            XCTAssertEqual("\($0)", "there is no channel 17: channels are 1...16")
        }
    }

    /// A song of length zero (set-up events at tick 0 only) plays one tick, so its events are sent;
    /// with a start, end or loop it plays as asked.
    func testASongOfLengthZeroPlaysOneTick() throws {
        let song = sequence([[TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 5))), endOfTrack(0)]])
        let player = try MusicPlayer(sequence: song, sampleRate: 48_000)
        XCTAssertEqual(player.durationInSamples, 50)  // 1 tick at 120 BPM, 480 PPQ: 1/960 s
        XCTAssertEqual(render(player).messages, [.programChange(channel: 0, program: 5)])
        XCTAssertEqual(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(end: .tick(0))).durationInSamples, 0)
    }

    func testSeekEndsSoundingNotesAndChases() throws {
        let player = try MusicPlayer(sequence: sequence([[
            TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 3))), on(0, 0, 60), off(960, 0, 60),
            cc(480, 0, 10, 30), on(1440, 0, 62), off(1920, 0, 62), endOfTrack(1920),
        ]]), sampleRate: 48_000)
        let receiver = render(player, until: 12_000)
        player.seek(toSample: 36_000)
        _ = render(player, from: 36_032, into: receiver)
        let afterSeek = receiver.received.filter { $0.sample >= 36_032 }.map(\.message)
        XCTAssertEqual(afterSeek, [
            .noteOff(channel: 0, note: 60, velocity: 0), .programChange(channel: 0, program: 3),
            .controlChange(channel: 0, controller: 10, value: 30),
            .noteOn(channel: 0, note: 62, velocity: 100), .noteOff(channel: 0, note: 62, velocity: 0),
        ])
        XCTAssertTrue(player.isFinished)
        player.reset()
        XCTAssertFalse(player.isFinished)
        XCTAssertEqual(noteOns(render(player).messages).count, 2)
    }

    func testFormat2PatternsPlayOneAfterAnother() throws {
        let player = try MusicPlayer(sequence: sequence([
            [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000))), on(0, 0, 60), off(480, 0, 60), endOfTrack(480)],
            [on(0, 0, 62), off(480, 0, 62), endOfTrack(480)],
        ], format: 2), sampleRate: 48_000)
        XCTAssertEqual(player.durationInSamples, 48_000 + 24_000)
        XCTAssertEqual(render(player).received.filter { $0.message.isNoteOn }.map(\.sample), [0, 48_000])
    }

    /// A song prepared once (format 2 patterns in order, tempo map, channels) plays as the sequence
    /// does, and a `--loop` region read from it ends where the sequence's would.
    func testAPreparedSongPlaysAsItsSequence() throws {
        let patterns = sequence([
            [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000))), on(0, 3, 60), off(480, 3, 60), endOfTrack(480)],
            [cc(0, 9, 7, 100), on(0, 0, 62), off(480, 0, 62), endOfTrack(480)],
        ], format: 2)
        let song = PreparedSong(patterns)
        XCTAssertEqual(song.channelsUsed, [0, 3, 9])
        XCTAssertEqual(song.tempoMap.endTick, 960)
        XCTAssertEqual(song.timeline, patterns.concatenatingPatterns())
        XCTAssertFalse(song.isEmpty)
        XCTAssertTrue(PreparedSong(MusicSequence()).isEmpty)
        let looped = SongOptions().looping(2, in: song)
        XCTAssertEqual(looped, SongOptions().looping(2, in: patterns))
        let prepared = try MusicPlayer(song: song, sampleRate: 48_000, options: looped)
        let direct = try MusicPlayer(sequence: patterns, sampleRate: 48_000, options: looped)
        XCTAssertEqual(prepared.durationInSamples, 2 * (48_000 + 24_000))
        let fromPrepared = render(prepared), fromSequence = render(direct)
        XCTAssertEqual(fromPrepared.received.map(\.sample), fromSequence.received.map(\.sample))
        XCTAssertEqual(fromPrepared.messages, fromSequence.messages)
        XCTAssertEqual(fromPrepared.messages.filter(\.isNoteOn).count, 4)
    }

    func testInvalidSettingsAreRefused() throws {
        let song = sequence([[on(0, 0, 60), endOfTrack(960)]])
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(rate: 0))) {
            XCTAssertEqual($0 as? SongOptionsError, .rateOutOfRange(0))
        }
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(start: .tick(1000)))) {
            XCTAssertEqual($0 as? SongOptionsError, .startAfterEnd(startTick: 1000, endTick: 960))
        }
        // Starting at the end, or an empty sequence, plays nothing.
        let atEnd = try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(start: .tick(960)))
        XCTAssertEqual(atEnd.durationInSamples, 0)
        XCTAssertEqual(atEnd.scheduledEventCount, 0)
        XCTAssertEqual(try MusicPlayer(sequence: MusicSequence(), sampleRate: 48_000).scheduledEventCount, 0)
        let backwards = LoopRegion(from: .tick(480), to: .tick(240), count: 2)
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 48_000, options: SongOptions(loop: backwards)))
        XCTAssertThrowsError(try MusicPlayer(sequence: song, sampleRate: 0))
    }
}
