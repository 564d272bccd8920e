import Foundation
import MIDICore
import MIDIFile
import TestSupport
import Testing

/// The edits `seqplay convert` is made of: excerpt (with chased state), transpose, note removal,
/// tempo scaling, merge re-timing and quantizing; and every file they write read back by mido.
@Suite struct SequenceConversionTests {
    private func midi(_ tick: Int64, _ message: MIDIMessage) -> TimedEvent { TimedEvent(tick: tick, .midi(message)) }
    private func meta(_ tick: Int64, _ meta: MetaEvent) -> TimedEvent { TimedEvent(tick: tick, .meta(meta)) }
    private func tempo(_ tick: Int64, _ microseconds: UInt32) -> TimedEvent { meta(tick, .tempo(microsecondsPerQuarter: microseconds)) }

    /// A conductor track and two instrument tracks, with state set before and notes across tick 960.
    private var song: MusicSequence {
        MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [
            MusicTrack(events: [meta(0, .text(.trackName, Array("Song".utf8))), tempo(0, 500_000),
                                meta(0, .timeSignature(numerator: 3, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)),
                                tempo(480, 600_000), meta(500, .text(.marker, Array("B".utf8))), tempo(1440, 400_000), meta(1920, .endOfTrack)]),
            MusicTrack(events: [midi(0, .programChange(channel: 0, program: 5)), midi(0, .controlChange(channel: 0, controller: 7, value: 90)),
                                midi(100, .controlChange(channel: 0, controller: 7, value: 70)), midi(200, .noteOn(channel: 0, note: 60, velocity: 80)),
                                midi(300, .pitchBend(channel: 0, value: 9000)), midi(1000, .noteOff(channel: 0, note: 60, velocity: 0)),
                                midi(1200, .noteOn(channel: 0, note: 62, velocity: 80)), midi(1800, .noteOff(channel: 0, note: 62, velocity: 0)),
                                meta(1920, .endOfTrack)]),
            MusicTrack(events: [midi(0, .programChange(channel: 9, program: 0)), midi(960, .noteOn(channel: 9, note: 36, velocity: 100)),
                                midi(1000, .noteOn(channel: 9, note: 36, velocity: 0)), meta(1920, .endOfTrack)]),
        ])
    }

    @Test func anExcerptKeepsTheStateSetBeforeItsStart() {
        let excerpt = song.excerpt(fromTick: 960, toTick: 1500)
        #expect(excerpt.tracks[0].events == [tempo(0, 600_000),
                                             meta(0, .timeSignature(numerator: 3, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)),
                                             meta(0, .text(.trackName, Array("Song".utf8))), tempo(480, 400_000), meta(540, .endOfTrack)])
        // The last volume and the pitch bend are chased; the first volume and the note before the cut are not;
        // the note sounding at the end is ended there.
        #expect(excerpt.tracks[1].events == [midi(0, .programChange(channel: 0, program: 5)), midi(0, .controlChange(channel: 0, controller: 7, value: 70)),
                                             midi(0, .pitchBend(channel: 0, value: 9000)), midi(40, .noteOff(channel: 0, note: 60, velocity: 0)),
                                             midi(240, .noteOn(channel: 0, note: 62, velocity: 80)), midi(540, .noteOff(channel: 0, note: 62, velocity: 0)),
                                             meta(540, .endOfTrack)])
        #expect(excerpt.tracks[2].events.first == midi(0, .programChange(channel: 9, program: 0)))
        // Times after the start are the original's less the start's.
        let map = TempoMap(sequence: song), cutMap = TempoMap(sequence: excerpt)
        for tick in [0, 100, 480, 540] as [Int64] {
            #expect(cutMap.time(atTick: tick) == map.time(atTick: tick + 960) - map.time(atTick: 960))
        }
    }

    @Test func transposingLeavesDrumsAndDropsNotesOutOfRange() {
        let sequence = MusicSequence(tracks: [MusicTrack(events: [midi(0, .noteOn(channel: 0, note: 120, velocity: 1)), midi(0, .noteOn(channel: 0, note: 60, velocity: 1)),
                                                                 midi(0, .noteOn(channel: 9, note: 36, velocity: 1))])])
        #expect(sequence.transposed(by: 10).tracks[0].events == [midi(0, .noteOn(channel: 0, note: 70, velocity: 1)), midi(0, .noteOn(channel: 9, note: 36, velocity: 1))])
    }

    @Test func mutingRemovesNotesButKeepsControllers() {
        let muted = song.removingNotes { track, _ in track != 2 }
        #expect(muted.tracks[1].events.allSatisfy { if case .midi(let m) = $0.event { !m.isNoteOn && !m.isNoteOff } else { true } })
        #expect(muted.tracks[1].events.count == song.tracks[1].events.count - 4)
        #expect(muted.tracks[2] == song.tracks[2])
    }

    @Test func scalingTheTempoScalesEveryTimeExactly() throws {
        var sequence = song
        sequence.tracks[0].events.remove(at: 1) // no tempo at the start: 120 BPM, which is scaled too
        let faster = try sequence.scalingTempo(by: 1.25)
        let map = TempoMap(sequence: sequence), fasterMap = TempoMap(sequence: faster)
        for tick in stride(from: Int64(0), through: 1920, by: 240) {
            #expect(abs(fasterMap.seconds(atTick: tick) - map.seconds(atTick: tick) / 1.25) < 1e-12)
        }
        #expect(throws: SequenceEditError.noTempoInSMPTEFile) {
            try MusicSequence(division: .smpte(framesPerSecond: 25, ticksPerFrame: 40)).scalingTempo(by: 2)
        }
        #expect(throws: SequenceEditError.tempoOutOfRange(microsecondsPerQuarter: 40_000_000)) {
            try MusicSequence(tracks: [MusicTrack(events: [tempo(0, 400_000)])]).scalingTempo(by: 0.01)
        }
    }

    @Test func aMergedFileSoundsAtTheSameSecondsInTheFirstFilesMap() {
        // 96 ticks per quarter at 100 BPM: tick t at t × 0.00625 s; the first file has 1.04167 ms ticks.
        let other = MusicSequence(format: 0, division: .ticksPerQuarter(96), tracks: [
            MusicTrack(events: [tempo(0, 600_000), meta(0, .text(.trackName, Array("Other".utf8)))]
                + (0..<20).map { midi(Int64($0) * 37, .noteOn(channel: 4, note: 50, velocity: 64)) }),
        ])
        let merged = song.merging(other)
        #expect(merged.tracks.count == 4)
        let map = TempoMap(sequence: merged), otherMap = TempoMap(sequence: other)
        let added = merged.tracks[3].events
        #expect(!added.contains { if case .meta(.tempo) = $0.event { true } else { false } }, "the first file's tempo map wins")
        for (timed, original) in zip(added.dropFirst(), other.tracks[0].events.dropFirst(2)) {
            let error = abs(map.seconds(atTick: timed.tick) - otherMap.seconds(atTick: original.tick))
            let tickLength = map.seconds(atTick: timed.tick + 1) - map.seconds(atTick: timed.tick)
            #expect(error <= tickLength / 2 + 1e-9)
        }
    }

    @Test func quantizingPutsNoteOffsFirstWhereNotesMeet() throws {
        let sequence = MusicSequence(tracks: [MusicTrack(events: [
            midi(5, .noteOn(channel: 0, note: 60, velocity: 90)), midi(118, .noteOn(channel: 0, note: 60, velocity: 90)),
            midi(125, .noteOff(channel: 0, note: 60, velocity: 0)), midi(230, .noteOff(channel: 0, note: 60, velocity: 0)), meta(400, .endOfTrack),
        ])])
        let quantized = try sequence.quantizingNotes(to: 16)
        #expect(quantized.tracks[0].events == [
            midi(0, .noteOn(channel: 0, note: 60, velocity: 90)), midi(120, .noteOff(channel: 0, note: 60, velocity: 0)),
            midi(120, .noteOn(channel: 0, note: 60, velocity: 90)), midi(232, .noteOff(channel: 0, note: 60, velocity: 0)), meta(400, .endOfTrack),
        ])
        #expect(throws: SequenceEditError.quantizeGridTooFine(noteValue: 4096, wholeNoteTicks: 1920)) { try sequence.quantizingNotes(to: 4096) }
    }

    /// Every edit of the shipped songs and the well-formed corpus files, written and read back by our
    /// reader and by mido: the same events.
    @Test func editedFilesReadBackTheSameInOurReaderAndMido() throws {
        guard let python = try RoundTripTests.pythonWithMido() else { return }
        let songs = ["bach-prelude-c", "beethoven-ode-to-joy", "pachelbel-canon"].map { Corpus.packageRoot.appendingPathComponent("Songs/\($0).mid") }
        // A sample of the corpus files mido reads (those with a reference decoding), up to 100 KB.
        let wellformed = Corpus.files(in: "wellformed").filter { file in
            let reference = Corpus.root!.appendingPathComponent("reference/wellformed/" + Corpus.relativePath(file, in: "wellformed") + ".json")
            let size = (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? .max
            return FileManager.default.fileExists(atPath: reference.path) && size <= 100_000
        }
        let corpus = stride(from: 0, to: wellformed.count, by: 8).map { wellformed[$0] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("edits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var expected: [String: MusicSequence] = [:]
        for (fileIndex, file) in (songs + corpus).enumerated() {
            let sequence = try MIDIFileReader.read(contentsOf: file.path).sequence
            let map = TempoMap(sequence: sequence.concatenatingPatterns())
            var edits: [(String, MusicSequence)] = [
                ("format0", sequence.mergedToFormat0()), ("split", sequence.mergedToFormat0().splitByChannel()),
                ("excerpt", sequence.excerpt(fromTick: map.endTick / 3, toTick: map.endTick * 2 / 3)),
                ("transposed", sequence.transposed(by: -5)), ("merged", sequence.merging(try MIDIFileReader.read(contentsOf: songs[0].path).sequence)),
                ("quantized", try sequence.quantizingNotes(to: 8)),
            ]
            if case .ticksPerQuarter = sequence.division { edits.append(("rate", try sequence.scalingTempo(by: 0.8))) }
            for (name, edited) in edits {
                let path = folder.appendingPathComponent("\(fileIndex)-\(name).mid").path
                try MIDIFileWriter.write(edited, to: path)
                let reread = try MIDIFileReader.read(contentsOf: path).sequence
                #expect(reread == RoundTripTests.asWritten(edited), "\(file.lastPathComponent) \(name)")
                expected[path] = reread
            }
        }
        let script = Corpus.packageRoot.appendingPathComponent("Tests/Tools/mido-dump.py").path
        let outcome = try runCommand(URL(fileURLWithPath: python), [script] + expected.keys.sorted(), timeLimit: 600)
        #expect(outcome.status == 0)
        let decoded = try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as! [String: [String: Any]]
        var different: [String] = []
        for (path, sequence) in expected {
            let tracks = (decoded[path]?["tracks"] as? [[[Any]]])?.map { $0.map { $0.map { "\($0)" } } }
            if tracks != sequence.tracks.map({ $0.events.map(ReferenceNotation.describe) }) { different.append(path) }
        }
        print("mido reads \(expected.count - different.count) of \(expected.count) edited files with the same events")
        #expect(different.isEmpty, "\(different)")
    }
}
