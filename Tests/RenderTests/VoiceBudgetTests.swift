import AudioFiles
import Foundation
import MIDICore
import MIDIFile
import Rendering
import TestSupport
import XCTest

/// The voice budget is the render's (`--polyphony` over all channel groups, whatever the thread
/// count), and note limiting for dense songs (`--max-notes-per-key`, `--min-velocity`).
final class VoiceBudgetTests: RenderTestCase {
    /// 8 channels, each starting a note every 5 ticks (5.2 ms at 120 BPM) held 240 ticks: about 380
    /// notes at once, far past a budget of 64 voices.
    static func denseSong(seconds: Double = 3) -> MusicSequence {
        var tracks: [MusicTrack] = []
        for channel in UInt8(0)..<8 {
            var notes: [(tick: Int64, order: Int, message: MIDIMessage)] = []
            var tick = Int64(channel), index = 0
            while Double(tick) < seconds * 960 {
                let key = UInt8(36 + (index * 7 + Int(channel) * 5) % 60)
                notes.append((tick, notes.count, .noteOn(channel: channel, note: key, velocity: UInt8(40 + (index * 13) % 80))))
                notes.append((tick + 240, notes.count, .noteOff(channel: channel, note: key, velocity: 0)))
                tick += 5
                index += 1
            }
            notes.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
            tracks.append(MusicTrack(events: [TimedEvent(tick: 0, .midi(.programChange(channel: channel, program: channel * 8)))]
                                     + notes.map { TimedEvent(tick: $0.tick, .midi($0.message)) }))
        }
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: tracks)
    }

    /// Each group's synthesizer may sound the whole budget, yet the groups together never sound
    /// more, and the voices they steal are the same on any number of threads (the same samples).
    func testTheVoicesOfAllGroupsTogetherNeverExceedTheBudget() throws {
        let sequence = Self.denseSong()
        var outputs: [[Float]] = []
        for threads in [1, 2] {
            var options = RenderOptions().renderingToFile(threads: threads)
            options.sampler.polyphony = 64
            options.tail = .fixed(seconds: 1)
            let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont], options: options)
            XCTAssertEqual(renderer.samplers.count, 2)
            XCTAssertEqual(renderer.samplers.map(\.polyphony), [64, 64], "each group may sound the whole budget")
            var peak = 0, blocks = 0, left: [Float] = []
            while let block = renderer.renderNextBlock() {
                peak = max(peak, renderer.samplers.reduce(0) { $0 + $1.activeVoiceCount })
                left += UnsafeBufferPointer(start: block[0].baseAddress!, count: block.frameLength)
                blocks += 1
            }
            print("threads \(threads): peak \(peak) voices over \(blocks) blocks")
            XCTAssertLessThanOrEqual(peak, 64, "threads \(threads)")
            XCTAssertGreaterThanOrEqual(peak, 60, "the song reaches the budget (threads \(threads))")
            outputs.append(left)
        }
        XCTAssertEqual(outputs[0], outputs[1], "the same voices stolen on 1 and 2 threads")
    }

    /// Two channels (so two groups), each with a chord of 12 notes, one after the other, under a
    /// budget just above the most voices the song sounds at once: each group alone sounds more than
    /// half of it, so a fixed split of the budget would steal, yet nothing is stolen: the render is
    /// the render with a budget of 4096, byte for byte, on 1 and 2 threads.
    func testASongUnderTheBudgetStealsNothing() throws {
        var events: [(tick: Int64, order: Int, message: MIDIMessage)] = []
        for (channel, start) in [(UInt8(0), Int64(0)), (UInt8(1), Int64(2_400))] {
            events.append((0, events.count, .programChange(channel: channel, program: channel == 0 ? 0 : 48)))
            for index in 0..<12 {
                let key = UInt8(48 + index * 2)
                events.append((start + Int64(index), events.count, .noteOn(channel: channel, note: key, velocity: 100)))
                events.append((start + 960, events.count, .noteOff(channel: channel, note: key, velocity: 0)))
            }
        }
        events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        let song = MusicSequence(format: 0, division: .ticksPerQuarter(480),
                                 tracks: [MusicTrack(events: events.map { TimedEvent(tick: $0.tick, .midi($0.message)) })])
        // The voices each group sounds, and both together, with no budget to speak of.
        var options = RenderOptions().renderingToFile(threads: 1)
        options.sampler.polyphony = 4096
        let renderer = try SongRenderer(sequence: song, soundFontPaths: [Self.generalMIDIFont], options: options)
        XCTAssertEqual(renderer.samplers.count, 2)
        var peaks = [0, 0], together = 0
        while renderer.renderNextBlock() != nil {
            for group in 0..<2 { peaks[group] = max(peaks[group], renderer.samplers[group].activeVoiceCount) }
            together = max(together, renderer.samplers.reduce(0) { $0 + $1.activeVoiceCount })
        }
        let budget = together + 2
        print("chords: peak voices per group \(peaks), together \(together); budget \(budget)")
        XCTAssertGreaterThan(peaks.min()! * 2, budget, "each group alone sounds more than half the budget")

        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("chords.mid").path
        try MIDIFileWriter.write(song, to: path)
        var renders: [Data] = []
        for (polyphony, threads) in [(4096, 1), (budget, 1), (budget, 2)] {
            let output = directory.appendingPathComponent("\(polyphony)-\(threads).wav")
            let run = try seqplay([path, "-o", output.path, "--sf2", Self.generalMIDIFont, "--polyphony", "\(polyphony)",
                                   "--threads", "\(threads)", "--bit-depth", "float"])
            XCTAssertEqual(run.status, 0, run.standardError)
            renders.append(try Data(contentsOf: output))
        }
        XCTAssertEqual(renders[1], renders[0], "a budget of \(budget) voices, one thread")
        XCTAssertEqual(renders[2], renders[0], "a budget of \(budget) voices, two threads")
    }

    /// A batch renders with the same budget split: its output is the bytes of `-o` on one thread.
    func testABatchRendersWithTheSameBudget() throws {
        let directory = try temporaryDirectory(), out = try temporaryDirectory()
        let song = directory.appendingPathComponent("dense.mid").path
        try MIDIFileWriter.write(Self.denseSong(seconds: 1.5), to: song)
        let flags = ["--sf2", Self.generalMIDIFont, "--polyphony", "64"]
        let single = try seqplay([song, "-o", directory.appendingPathComponent("one.wav").path, "--threads", "1"] + flags)
        XCTAssertEqual(single.status, 0, single.standardError)
        let batch = try seqplay(["render", song, "--output-dir", out.path, "--jobs", "2"] + flags)
        XCTAssertEqual(batch.status, 0, batch.standardError)
        let unlimited = try seqplay([song, "-o", directory.appendingPathComponent("full.wav").path, "--threads", "1",
                                     "--sf2", Self.generalMIDIFont, "--polyphony", "128"])
        XCTAssertEqual(unlimited.status, 0, unlimited.standardError)
        let one = try Data(contentsOf: directory.appendingPathComponent("one.wav"))
        XCTAssertEqual(one, try Data(contentsOf: out.appendingPathComponent("dense.wav")))
        XCTAssertNotEqual(one, try Data(contentsOf: directory.appendingPathComponent("full.wav")), "the budget changes this song")
    }

    func testSharesFollowThePeaks() {
        let budget = VoiceBudget(voices: 256)
        XCTAssertEqual(budget.shares(peaks: [10, 30]), [118, 138], "under the budget: each its peak and half the rest")
        XCTAssertEqual(budget.shares(peaks: [300, 100]), [192, 64], "over it: in proportion")
        XCTAssertEqual(budget.shares(peaks: [0, 0, 0]), [86, 85, 85])
        XCTAssertEqual(VoiceBudget(voices: 10).shares(peaks: [1000, 1]), [9, 1])
        XCTAssertEqual(VoiceBudget(voices: 2).shares(peaks: [5, 5, 5]), [1, 1, 1])
    }

    // MARK: Note limiting

    /// One channel playing `program`; notes as (start, end, key, velocity) in ticks at 480 per second (60 BPM).
    static func song(_ notes: [(start: Int64, end: Int64, key: UInt8, velocity: UInt8)], program: UInt8 = 16) -> MusicSequence {
        var events: [(tick: Int64, order: Int, message: MIDIMessage)] = [(0, 0, .programChange(channel: 0, program: program))]
        for note in notes {
            events.append((note.start, events.count, .noteOn(channel: 0, note: note.key, velocity: note.velocity)))
            events.append((note.end, events.count, .noteOff(channel: 0, note: note.key, velocity: 0)))
        }
        events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        let tempo = TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000)))
        return MusicSequence(format: 0, division: .ticksPerQuarter(480),
                             tracks: [MusicTrack(events: [tempo] + events.map { TimedEvent(tick: $0.tick, .midi($0.message)) })])
    }

    func limitedOptions(maximumNotesPerKey: Int? = nil, minimumVelocity: UInt8? = nil) -> RenderOptions {
        var options = RenderOptions()
        options.sampler.maximumNotesPerKey = maximumNotesPerKey
        options.sampler.minimumVelocity = minimumVelocity
        options.tail = .fixed(seconds: 1)
        return options
    }

    func renderLimited(_ sequence: MusicSequence, maximumNotesPerKey: Int? = nil, minimumVelocity: UInt8? = nil) throws -> [[Float]] {
        try render(sequence, fonts: [Self.generalMIDIFont],
                   options: limitedOptions(maximumNotesPerKey: maximumNotesPerKey, minimumVelocity: minimumVelocity))
    }

    /// The voices sounding after each block of a render.
    func voiceCounts(_ sequence: MusicSequence, maximumNotesPerKey: Int?) throws -> [Int] {
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont],
                                        options: limitedOptions(maximumNotesPerKey: maximumNotesPerKey))
        var counts: [Int] = []
        while renderer.renderNextBlock() != nil { counts.append(renderer.sampler.activeVoiceCount) }
        return counts
    }

    /// A key struck every 0.25 s with a pad (1.5 s release): its releases pile up, unless at most
    /// N notes may sound on the key, the oldest ended (faster release) at each new note-on.
    func testMaximumNotesPerKeyEndsTheOldestSoundingNote() throws {
        var notes: [(start: Int64, end: Int64, key: UInt8, velocity: UInt8)] = []
        for index in 0..<16 {
            let start = Int64(index * 120)
            notes.append((start: start, end: start + 24, key: 60, velocity: 100))
        }
        let song = Self.song(notes, program: 88)
        let free = try voiceCounts(song, maximumNotesPerKey: nil)
        let one = try voiceCounts(song, maximumNotesPerKey: 1), two = try voiceCounts(song, maximumNotesPerKey: 2)
        // Mean voices over the song's 4 s (344 blocks of 512 frames).
        func mean(_ counts: [Int]) -> Double { Double(counts.prefix(344).reduce(0, +)) / Double(min(344, counts.count)) }
        print("mean voices: no limit \(mean(free)), 2 per key \(mean(two)), 1 per key \(mean(one)); peaks \(free.max()!), \(two.max()!), \(one.max()!)")
        XCTAssertLessThan(mean(one), mean(two))
        XCTAssertLessThan(mean(two), mean(free) * 0.8)
        XCTAssertLessThan(one.max()!, free.max()!)
        // A limit never reached changes nothing.
        let sparse = Self.song([(0, 480, 60, 100), (960, 1440, 60, 90), (240, 960, 64, 80)])
        let sparseLimited = try renderLimited(sparse, maximumNotesPerKey: 4), sparseFree = try renderLimited(sparse)
        XCTAssertTrue(sparseLimited == sparseFree, "a limit not reached changes the render")
    }

    /// Notes below the minimum velocity are not played, and their note-offs do not end the louder
    /// notes on the same key: the render of the song without them.
    func testMinimumVelocitySkipsQuietNotesAndTheirNoteOffs() throws {
        let song = Self.song([(0, 720, 60, 30), (240, 1440, 60, 100), (480, 960, 64, 63), (480, 960, 67, 64)])
        let skipped = try renderLimited(song, minimumVelocity: 64)
        let without = try renderLimited(Self.song([(240, 1440, 60, 100), (480, 960, 67, 64)])), unlimited = try renderLimited(song)
        XCTAssertTrue(skipped == without, "the render differs from the song without the quiet notes")
        XCTAssertFalse(skipped == unlimited, "the limit changes nothing")
        XCTAssertGreaterThan(skipped[0].map(abs).max() ?? 0, 0.01)
    }

    func testTheCommandLineRefusesLimitsOutOfRange() throws {
        for flags in [["--max-notes-per-key", "0"], ["--max-notes-per-key", "129"], ["--min-velocity", "0"], ["--min-velocity", "128"]] {
            let run = try seqplay([song, "-o", "/dev/null", "--sf2", Self.generalMIDIFont] + flags)
            XCTAssertEqual(run.status, 64, "\(flags): \(run.standardError)")
        }
    }
}
