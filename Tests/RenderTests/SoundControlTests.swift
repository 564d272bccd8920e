import AllocationCounter
import Sampler
import Foundation
import MIDICore
import MIDIFile
import Rendering
import XCTest

/// `SamplerSettings` (`--program`, `--drums`, `--polyphony`, `--interpolation`, reverb and chorus
/// parameters): each changes the sound where it should and nothing where it should not.
final class SoundControlTests: RenderTestCase {
    private func render(_ sequence: MusicSequence, _ sound: SamplerSettings, reverb: Bool = false, muted: Set<Int> = []) throws -> [[Float]] {
        var options = dryOptions(tail: 0.5)
        options.sampler = sound
        options.sampler.reverb.isEnabled = reverb
        options.sampler.chorus.isEnabled = reverb
        options.song.mutedChannels = muted
        return try render(sequence, fonts: [Self.generalMIDIFont], options: options)
    }

    private func largestDifference(_ a: [[Float]], _ b: [[Float]]) -> Float {
        ConvertTests.largestDifference(a, b)
    }

    /// Notes on `channel` (0-based): a chord held for a second.
    /// Reverb and chorus sends (CC 91, 93) at `sends`.
    private func chord(channel: UInt8, program: UInt8 = 0, notes: [UInt8] = [60, 64, 67], sends: UInt8 = 0) -> MusicSequence {
        var events = [TimedEvent(tick: 0, .midi(.programChange(channel: channel, program: program))),
                      TimedEvent(tick: 0, .midi(.controlChange(channel: channel, controller: 91, value: sends))),
                      TimedEvent(tick: 0, .midi(.controlChange(channel: channel, controller: 93, value: sends)))]
        events += notes.map { TimedEvent(tick: 0, .midi(.noteOn(channel: channel, note: $0, velocity: 100))) }
        events += notes.map { TimedEvent(tick: 960, .midi(.noteOff(channel: channel, note: $0, velocity: 0))) }
        return MusicSequence(format: 0, tracks: [MusicTrack(events: events)])
    }

    func testAForcedProgramChangesItsChannelOnly() throws {
        let song = song(notes: [(channel: 0, program: 0, note: 60), (channel: 1, program: 40, note: 67)])
        var forced = SamplerSettings()
        forced.programs[0] = .init(program: 73)
        let otherChannelPlain = try render(song, SamplerSettings(), muted: [0])
        let otherChannelForced = try render(song, forced, muted: [0])
        XCTAssertEqual(largestDifference(otherChannelForced, otherChannelPlain), 0, "channel 2 sounds the same")
        let forcedChannel = try render(song, forced, muted: [1])
        XCTAssertGreaterThan(largestDifference(forcedChannel, try render(song, SamplerSettings(), muted: [1])), 0.01)
        // The forced channel sounds as if the song had asked for program 73 itself.
        let asked = self.song(notes: [(channel: 0, program: 73, note: 60), (channel: 1, program: 40, note: 67)])
        XCTAssertEqual(largestDifference(forcedChannel, try render(asked, SamplerSettings(), muted: [1])), 0)
    }

    func testAChannelFontPlaysThatChannelOnly() throws {
        let song = song(notes: [(channel: 0, program: 0, note: 60), (channel: 1, program: 0, note: 67)])
        var clickOn2 = SamplerSettings()
        clickOn2.channelFonts[1] = Self.clickFont
        // Channel 2 sounds as the click font alone plays it; channel 1 as the General MIDI font plays it.
        var clickAlone = dryOptions(tail: 0.5)
        clickAlone.song.mutedChannels = [0]
        XCTAssertEqual(largestDifference(try render(song, clickOn2, muted: [0]), try render(song, fonts: [Self.clickFont], options: clickAlone)), 0)
        XCTAssertEqual(largestDifference(try render(song, clickOn2, muted: [1]), try render(song, SamplerSettings(), muted: [1])), 0)
        XCTAssertGreaterThan(largestDifference(try render(song, clickOn2, muted: [0]), try render(song, SamplerSettings(), muted: [0])), 0.01)
    }

    func testDrumsOn11PlaysTheDrumKitThere() throws {
        let kit = chord(channel: 9, notes: [36, 38, 42])
        var on11 = chord(channel: 10, notes: [36, 38, 42])
        // A GM System On first: the reset keeps channel 11 a drum channel.
        on11.tracks[0].events.insert(TimedEvent(tick: 0, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7])), at: 0)
        var drums = SamplerSettings()
        drums.drumChannels = [10]
        let expected = try render(kit, SamplerSettings())
        XCTAssertEqual(largestDifference(try render(on11, drums), expected), 0, "channel 11 plays the kit as channel 10 does")
        XCTAssertGreaterThan(largestDifference(try render(on11, SamplerSettings()), expected), 0.01, "without --drums it plays a piano")
        XCTAssertGreaterThan(largestDifference(try render(kit, drums), expected), 0.01, "channel 10 is no longer a drum channel")
    }

    func testPolyphonyOneLeavesOneVoice() throws {
        func mostVoices(_ sound: SamplerSettings) throws -> Int {
            var options = dryOptions()
            options.sampler.polyphony = sound.polyphony
            let renderer = try SongRenderer(sequence: chord(channel: 0), soundFontPaths: [Self.generalMIDIFont], options: options)
            var most = 0
            while renderer.renderNextBlock() != nil { most = max(most, renderer.sampler.activeVoiceCount) }
            return most
        }
        var one = SamplerSettings()
        one.polyphony = 1
        XCTAssertGreaterThanOrEqual(try mostVoices(SamplerSettings()), 3)
        XCTAssertEqual(try mostVoices(one), 1)
    }

    func testInterpolationOrdersDiffer() throws {
        let song = chord(channel: 0, program: 0, notes: [61])
        var renders: [SamplerSettings.Interpolation: [[Float]]] = [:]
        for method in SamplerSettings.Interpolation.allCases {
            var sound = SamplerSettings()
            sound.interpolation = method
            renders[method] = try render(song, sound)
        }
        let methods = SamplerSettings.Interpolation.allCases
        for (index, a) in methods.enumerated() {
            for b in methods[(index + 1)...] {
                XCTAssertGreaterThan(largestDifference(renders[a]!, renders[b]!), 0, "\(a) and \(b)")
            }
        }
        XCTAssertEqual(largestDifference(renders[.fourthOrder]!, try render(song, SamplerSettings())), 0, "4th order is the default")
    }

    func testReverbAndChorusParametersChangeTheWetSoundOnly() throws {
        let song = chord(channel: 0, sends: 127)
        var room = SamplerSettings()
        room.reverb = .init(roomSize: 0.95, damping: 0.1, width: 80, level: 1)
        var chorus = SamplerSettings()
        chorus.chorus = .init(voices: 20, level: 8, speed: 4, depth: 40, type: .triangle)
        let plain = try render(song, SamplerSettings(), reverb: true)
        XCTAssertGreaterThan(largestDifference(try render(song, room, reverb: true), plain), 0.001)
        XCTAssertGreaterThan(largestDifference(try render(song, chorus, reverb: true), plain), 0.001)
        // With reverb and chorus off they change nothing.
        let dry = try render(song, SamplerSettings())
        XCTAssertEqual(largestDifference(try render(song, room), dry), 0)
        XCTAssertEqual(largestDifference(try render(song, chorus), dry), 0)
    }

    func testRenderingWithSoundControlsAllocatesNothing() throws {
        // Program changes, bank selects and resets on forced, drum and channel-font channels, mid-song.
        var events: [TimedEvent] = []
        for index in 0..<64 {
            let tick = Int64(index) * 120, channel = UInt8(index % 4 + 8)
            events.append(TimedEvent(tick: tick, .midi(.controlChange(channel: channel, controller: 0, value: 0))))
            events.append(TimedEvent(tick: tick, .midi(.programChange(channel: channel, program: UInt8(index % 8)))))
            events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: UInt8(40 + index % 30), velocity: 90))))
            events.append(TimedEvent(tick: tick + 100, .midi(.noteOff(channel: channel, note: UInt8(40 + index % 30), velocity: 0))))
            if index % 16 == 15 { events.append(TimedEvent(tick: tick + 110, .sysEx([0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41, 0xF7]))) }
        }
        var sound = dryOptions().sampler
        sound.programs[8] = .init(program: 40)
        sound.drumChannels = [9, 10]
        sound.channelFonts[11] = Self.clickFont
        var options = dryOptions(tail: 0.2)
        options.sampler = sound
        let renderer = try SongRenderer(sequence: MusicSequence(format: 0, tracks: [MusicTrack(events: events)]),
                                        soundFontPaths: [Self.generalMIDIFont], options: options)
        for _ in 0..<8 { _ = renderer.renderNextBlock() }
        seqplay_alloc_count_begin()
        var blocks = 0
        while renderer.renderNextBlock() != nil { blocks += 1 }
        let counts = seqplay_alloc_count_end()
        XCTAssertGreaterThan(blocks, 100)
        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(counts.frees, 0)
    }

    func testTheFlagsReachTheRenderAndBadValuesAreRefused() throws {
        let output = try temporaryDirectory().appendingPathComponent("out.wav").path
        let song = Self.packageRoot.appendingPathComponent("Songs/bach-prelude-c.mid").path
        let ok = try seqplay([song, "--end", "2", "--tail", "0.2", "--sf2", Self.generalMIDIFont, "-o", output, "--program", "1=40",
                              "--drums", "10,11", "--font-for", "3=\(Self.clickFont)", "--polyphony", "32", "--interpolation", "7", "--reverb-room-size", "0.8", "--chorus-type", "triangle"])
        XCTAssertEqual(ok.status, 0, ok.standardError)
        for bad in [["--program", "17=1"], ["--program", "1=128"], ["--drums", "0"], ["--polyphony", "0"], ["--interpolation", "3"],
                    ["--reverb-width", "101"], ["--chorus-voices", "100"], ["--chorus-type", "square"]] {
            let run = try seqplay([song, "-o", output] + bad)
            XCTAssertEqual(run.status, 64, "\(bad): \(run.standardError)")
        }
        let help = String(decoding: try seqplay(["help", "render"]).standardOutput, as: UTF8.self)
        for flag in ["--program", "--font-for", "--drums", "--bank-select", "--polyphony", "--interpolation", "--reverb-room-size", "--reverb-damping",
                     "--reverb-width", "--reverb-level", "--chorus-voices", "--chorus-level", "--chorus-speed", "--chorus-depth", "--chorus-type"] {
            XCTAssertTrue(help.contains(flag), flag)
        }
    }
}
