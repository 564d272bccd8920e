import Atomics
import Foundation
import JACK
import Sessions
import JACKTestSupport
import MIDICore
import MIDIFile
import Player
import RenderTestSupport
import Rendering
import TestSupport
import XCTest

/// `seqplay SONG -a jack --jack-midi-out` against a real server: a test client records midi_out (each
/// event's server frame) and another the audio. The MIDI is the song's schedule, with every playback
/// setting, at exactly its sample times (relative to the first event); each note-on's frame is where
/// its click starts in the audio (within the sampler's 64-sample grid). And the process thread
/// does not allocate while it writes midi_out.
final class JACKSongMIDIOutputTests: JACKServerTestCase {
    /// Clicks on channels 1 and 2 at irregular ticks, at least 0.15 s apart, under three tempos, with
    /// a program change each and a controller on channel 1 mid-song (chased by --start).
    private static func song() -> MusicSequence {
        var notes: [TimedEvent] = [TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 0))),
                                   TimedEvent(tick: 0, .midi(.programChange(channel: 1, program: 0))),
                                   TimedEvent(tick: 700, .midi(.controlChange(channel: 0, controller: 7, value: 110)))]
        var tick: Int64 = 0
        let gaps: [Int64] = [192, 230, 200, 311, 257, 199, 283, 241, 217, 263]
        for index in 0..<40 {
            let channel = UInt8(index % 2), note = UInt8(50 + index % 17)
            notes.append(TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: note, velocity: 100))))
            notes.append(TimedEvent(tick: tick + 96, .midi(.noteOff(channel: channel, note: note, velocity: 0))))
            tick += gaps[index % gaps.count]
        }
        notes.sort { $0.tick < $1.tick }
        notes.append(TimedEvent(tick: tick, .meta(.endOfTrack)))
        let conductor = [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
                         TimedEvent(tick: 2_000, .meta(.tempo(microsecondsPerQuarter: 600_000))),
                         TimedEvent(tick: 5_000, .meta(.tempo(microsecondsPerQuarter: 400_000))),
                         TimedEvent(tick: tick, .meta(.endOfTrack))]
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: conductor), MusicTrack(events: notes)])
    }

    func testMidiOutCarriesTheSchedulesEventsAtTheirExactSampleTimesBesideTheirAudio() throws {
        let path = scratch.path("clicks.mid")
        try MIDIFileWriter.write(Self.song(), to: path)
        let server = try JACKTestServer(blockFrames: 256)
        let midi = try JACKTestMIDIRecorder(name: "midirec", serverName: server.name)
        let audio = try JACKTestRecorder(name: "rec", serverName: server.name, capacity: 48_000 * 14)
        let settings = ["--start", "1", "--end", "9", "--loop", "2", "--loop-from", "2", "--loop-to", "3.5", "--rate", "1.25",
                        "--transpose", "2", "--mute-channel", "2"]
        let run = try seqplay([path, "--sf2", "SoundFonts/click.sf2", "--no-reverb", "--no-chorus", "-a", "jack",
                               "--jack-connect", "^rec:", "--jack-midi-out", "--jack-midi-connect", "^midirec:"] + settings,
                              environment: server.environment)
        XCTAssertEqual(run.status, 0, run.errors)

        // What the scheduler gives the sampler for the same settings.
        let song = SongOptions(transpose: 2, rate: 1.25, start: .seconds(1), end: .seconds(9),
                               loop: LoopRegion(from: .seconds(2), to: .seconds(3.5), count: 2), mutedChannels: [1])
        let player = try MusicPlayer(sequence: Self.song(), sampleRate: 48_000, options: song)
        let log = SongEventLog()
        player.deliverEvents(before: .max, to: log)
        let expected = log.events

        let recorded = midi.events
        XCTAssertEqual(recorded.count, expected.count, "every scheduled event, nothing else")
        XCTAssertEqual(recorded.map(\.bytes), expected.map(\.message.bytes), "the same messages in the same order")
        let recordedTimes = recorded.map { $0.frame - (recorded.first?.frame ?? 0) }
        let expectedTimes = expected.map { $0.sampleTime - (expected.first?.sampleTime ?? 0) }
        let wrong = zip(recordedTimes, expectedTimes).filter { $0 != $1 }
        XCTAssertEqual(wrong.count, 0, "frames relative to the first differ from the schedule: \(wrong.prefix(5))")
        XCTAssertTrue(expected.contains { $0.message.channel == 0 } && !expected.contains { $0.message.isNoteOn && $0.message.channel == 1 },
                      "channel 2 muted")

        // Each note-on's frame is where its click starts in the audio.
        let noteOns = recorded.filter { $0.bytes.count == 3 && $0.bytes[0] & 0xF0 == 0x90 && $0.bytes[2] > 0 }.map(\.frame)
        let onsets = OnsetTiming.onsets(in: audio.samples(channel: 0)).map { audio.firstFrameTime + Int64($0) }
        XCTAssertEqual(onsets.count, noteOns.count, "one click per note-on")
        let offsets = zip(onsets, noteOns).map { $0 - $1 }
        print("JACK midi_out: \(recorded.count) events at the schedule's exact sample times; audio onset − MIDI note-on frame: "
              + "min \(offsets.min() ?? 0), max \(offsets.max() ?? 0) samples over \(offsets.count) notes")
        XCTAssertTrue(offsets.allSatisfy { abs($0) < 64 }, "\(offsets)")
    }

    func testTheProcessCallbackDoesNotAllocateWhileItWritesMidiOut() throws {
        let server = try JACKTestServer(blockFrames: 128)
        let output = try JACKOutput(settings: JACKOutputSettings(serverName: server.name, connection: .none))
        let counter = CycleAllocationCounter()
        output.jack.addCycleHandler(counter)
        var options = RenderOptions()
        options.sampler.reverb.isEnabled = false
        let playback = try SongPlayback(sequence: Self.song(), soundFontPaths: ["SoundFonts/click.sf2"], options: options, output: output)
        let recorder = try JACKTestMIDIRecorder(name: "midirec", serverName: server.name)
        _ = try JACKSongMIDIOutput(playback: playback, driver: output.jack, connecting: "^midirec:")
        try playback.start()
        // The first events take the Swift runtime's one-time paths; counting starts after them.
        while recorder.events.count < 12 { usleep(5_000) }
        counter.start()
        while !playback.isFinished { usleep(20_000) }
        playback.stop(draining: false)
        print("JACK midi_out: \(counter.countedCycles) cycles counted, \(counter.allocations) allocations, \(recorder.events.count) events")
        XCTAssertGreaterThanOrEqual(counter.countedCycles, 500)
        XCTAssertGreaterThanOrEqual(recorder.events.count, 80)
        XCTAssertEqual(counter.allocations, 0, "allocations in JACK's process thread while writing midi_out")
    }

    private func seqplay(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, errors: String) {
        let run = try runCommand(seqplayBinary, arguments, environment: environment)
        return (run.status, run.standardError)
    }
}
