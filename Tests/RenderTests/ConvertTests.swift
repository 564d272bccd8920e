import Foundation
import MIDICore
import MIDIFile
import Player
import Rendering
import XCTest

/// `seqplay convert`: the files it writes play as the originals do with the same options given to
/// the player, compared by rendering both.
final class ConvertTests: RenderTestCase {
    private var songs: [String] {
        ["bach-prelude-c", "beethoven-ode-to-joy", "pachelbel-canon"].map { Self.packageRoot.appendingPathComponent("Songs/\($0).mid").path }
    }

    /// Runs `seqplay convert input -o (new file) arguments`, expects success, and reads the file back.
    private func convert(_ input: String, _ arguments: [String] = []) throws -> (path: String, sequence: MusicSequence) {
        let path = try temporaryDirectory().appendingPathComponent("converted.mid").path
        let run = try seqplay(["convert", input, "-o", path] + arguments)
        XCTAssertEqual(run.status, 0, run.standardError)
        let read = try MIDIFileReader.read(contentsOf: path, mode: .strict)
        return (path, read.sequence)
    }

    private func render(file path: String, options: RenderOptions) throws -> [[Float]] {
        try render(MIDIFileReader.read(contentsOf: path).sequence, fonts: [Self.generalMIDIFont], options: options)
    }

    /// Reverb and chorus on (they carry state from note to note), a fixed tail.
    private func options(_ playback: SongOptions = SongOptions(), tail: Double = 1) -> RenderOptions {
        var options = RenderOptions()
        options.song = playback
        options.tail = .fixed(seconds: tail)
        return options
    }

    func testFormat1To0To1RoundTripsRenderIdentically() throws {
        for song in songs.suffix(1) {
            let format0 = try convert(song, ["--format", "0"])
            XCTAssertEqual(format0.sequence.format, 0)
            XCTAssertEqual(format0.sequence.tracks.count, 1)
            let format1 = try convert(format0.path, ["--format", "1"])
            XCTAssertEqual(format1.sequence.format, 1)
            let channels = Set(format0.sequence.tracks[0].events.compactMap { if case .midi(let m) = $0.event { m.channel } else { nil } })
            XCTAssertEqual(format1.sequence.tracks.count, channels.count + 1, "a conductor track, then one per channel")
            let original = try render(file: song, options: options())
            XCTAssertGreaterThan(original[0].map(abs).max() ?? 0, 0.05, "the song renders sound")
            XCTAssertEqual(Self.largestDifference(try render(file: format0.path, options: options()), original), 0, "format 0 of \(song)")
            XCTAssertEqual(Self.largestDifference(try render(file: format1.path, options: options()), original), 0, "format 0 then 1 of \(song)")
        }
    }

    func testACutAtBar17RendersAsStartingThere() throws {
        let song = songs[0]
        let cut = try convert(song, ["--start", "17:1"])
        let played = try render(file: song, options: options(SongOptions(start: .barBeatTick(BarBeatTick(bar: 17)))))
        XCTAssertEqual(Self.largestDifference(try render(file: cut.path, options: options()), played), 0)
        // The programs set at the start of the song are still there, at tick 0 of their tracks.
        let programs = cut.sequence.tracks.flatMap(\.events).filter { if case .midi(.programChange) = $0.event { true } else { false } }
        XCTAssertFalse(programs.isEmpty)
        XCTAssertTrue(programs.allSatisfy { $0.tick == 0 })
    }

    func testCutTransposeRateAndMuteRenderAsThePlayerPlaysThem() throws {
        // Rate 0.5 doubles every tempo exactly; other rates round a tempo to the microsecond when it
        // does not divide, which moves late notes by a sample or so.
        for song in songs.dropFirst() {
            let arguments = ["--start", "9:3", "--end", "15:2", "--transpose", "3", "--rate", "0.5", "--mute", "1"]
            let converted = try convert(song, arguments)
            var playback = SongOptions(transpose: 3, rate: 0.5, start: .barBeatTick(BarBeatTick(bar: 9, beat: 3)),
                                            end: .barBeatTick(BarBeatTick(bar: 15, beat: 2)))
            var played = options(playback)
            played.song.mutedTracks = [1]
            let expected = try render(file: song, options: played)
            XCTAssertEqual(Self.largestDifference(try render(file: converted.path, options: options()), expected), 0, song)
            guard song == songs.last else { continue }
            playback.transpose = 0
            XCTAssertGreaterThan(Self.largestDifference(try render(file: converted.path, options: options()), try render(file: song, options: options(playback))),
                                 0.01, "the comparison notices a missing transpose")
        }
    }

    /// The largest difference between two renders, sample by sample (infinite when their lengths differ).
    static func largestDifference(_ a: [[Float]], _ b: [[Float]]) -> Float {
        guard a.count == b.count, zip(a, b).allSatisfy({ $0.count == $1.count }) else { return .infinity }
        return zip(a, b).map { zip($0, $1).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
    }

    func testAMergeRendersLikeTheTwoRendersMixed() throws {
        // The first song: 120 BPM, then 60 BPM from its third second on; the second: 60 BPM throughout,
        // 960 ticks per quarter. The second's tick t sounds at t/960 s: tick 2t/2 = t of the first
        // before 2 s, and 1920 + (t/960 - 2) × 480 ticks after.
        let first = MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [
            MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
                                TimedEvent(tick: 1920, .meta(.tempo(microsecondsPerQuarter: 1_000_000)))]),
            Self.melody(channel: 0, program: 0, notes: [60, 64, 67, 72, 67, 64], ticksPerNote: 480),
        ])
        let second = MusicSequence(format: 0, division: .ticksPerQuarter(960), tracks: [
            MusicTrack(events: [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000)))]
                       + Self.melody(channel: 3, program: 32, notes: [36, 43, 41, 38], ticksPerNote: 1440).events),
        ])
        let folder = try temporaryDirectory()
        let firstPath = folder.appendingPathComponent("first.mid").path, secondPath = folder.appendingPathComponent("second.mid").path
        try MIDIFileWriter.write(first, to: firstPath)
        try MIDIFileWriter.write(second, to: secondPath)

        let merged = try convert(firstPath, ["--merge", secondPath])
        XCTAssertEqual(merged.sequence.tracks.count, 3)
        let noteTicks = merged.sequence.tracks[2].events.compactMap { if case .midi(let m) = $0.event, m.isNoteOn { $0.tick } else { nil } }
        XCTAssertEqual(noteTicks, [0, 1440, 2400, 3120], "the second song's notes at 0, 1.5, 3 and 4.5 s, in the first song's map")

        let mixedOptions = options(tail: 2)
        let a = try render(first, fonts: [Self.generalMIDIFont], options: mixedOptions)
        let b = try render(second, fonts: [Self.generalMIDIFont], options: mixedOptions)
        let both = try render(file: merged.path, options: mixedOptions)
        XCTAssertEqual(both[0].count, max(a[0].count, b[0].count))
        var largestDifference: Float = 0
        for channel in 0..<2 {
            for index in both[channel].indices {
                let mixed = (index < a[channel].count ? a[channel][index] : 0) + (index < b[channel].count ? b[channel][index] : 0)
                largestDifference = max(largestDifference, abs(both[channel][index] - mixed))
            }
        }
        print("merge: largest difference from the two renders mixed \(largestDifference)")
        XCTAssertLessThan(largestDifference, 1e-5)
    }

    func testQuantizedNotesStartOnTheGridAndKeepTheirLengths() throws {
        var track = MusicTrack()
        for (index, start) in [3, 118, 245, 370, 478].enumerated() {
            track.events.append(TimedEvent(tick: Int64(start), .midi(.noteOn(channel: 0, note: UInt8(60 + index), velocity: 90))))
            track.events.append(TimedEvent(tick: Int64(start + 100), .midi(.noteOff(channel: 0, note: UInt8(60 + index), velocity: 0))))
        }
        let path = try temporaryDirectory().appendingPathComponent("loose.mid").path
        try MIDIFileWriter.write(MusicSequence(format: 0, tracks: [track]), to: path)
        let events = try convert(path, ["--quantize", "1/16"]).sequence.tracks[0].events
        let ons = events.filter { if case .midi(let m) = $0.event { m.isNoteOn } else { false } }.map(\.tick)
        let offs = events.filter { if case .midi(let m) = $0.event { m.isNoteOff } else { false } }.map(\.tick)
        XCTAssertEqual(ons, [0, 120, 240, 360, 480])
        XCTAssertEqual(offs, [100, 220, 340, 460, 580])
    }

    func testBadInputIsRefusedWithTheReason() throws {
        let song = songs[0]
        let output = try temporaryDirectory().appendingPathComponent("out.mid").path
        for (arguments, status, message) in [
            (["--format", "2"], Int32(64), "--format must be 0 or 1"),
            (["--rate", "0"], 64, "--rate must be > 0"),
            (["--quantize", "1/x"], 64, "--quantize needs a note value"),
            (["--mute", "9"], 64, "no track 9"),
            (["--start", "30:1", "--end", "20:1"], 64, "is after end"),
            (["--merge", "/nonexistent.mid"], 5, "/nonexistent.mid"),
        ] as [([String], Int32, String)] {
            let run = try seqplay(["convert", song, "-o", output] + arguments)
            XCTAssertEqual(run.status, status, "\(arguments): \(run.standardError)")
            XCTAssertTrue(run.standardError.contains(message), "\(arguments): \(run.standardError)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
    }

    /// A track on `channel`: `program`, then `notes` one after another, `ticksPerNote` each.
    static func melody(channel: UInt8, program: UInt8, notes: [UInt8], ticksPerNote: Int64) -> MusicTrack {
        var events = [TimedEvent(tick: 0, .midi(.programChange(channel: channel, program: program)))]
        for (index, note) in notes.enumerated() {
            let start = Int64(index) * ticksPerNote
            events.append(TimedEvent(tick: start, .midi(.noteOn(channel: channel, note: note, velocity: 100))))
            events.append(TimedEvent(tick: start + ticksPerNote, .midi(.noteOff(channel: channel, note: note, velocity: 0))))
        }
        return MusicTrack(events: events)
    }
}
