import Foundation
import MIDICore
import MIDIFile
import TestSupport
import Testing

/// `SequenceReport(contentsOf:mode:)`, streamed from the mapped file, against the report of the
/// sequence `MIDIFileReader` reads: the same report, or the same error, for every corpus file and for
/// files built here to reach the reader's repairs, format 2 and merge ties, in lenient and strict mode.
@Suite struct StreamedReportTests {
    /// The report built from the whole sequence, or the reader's error.
    private func collected(_ path: String, _ mode: MIDIFileReader.Mode) -> Result<SequenceReport, MIDIFileIssue> {
        Result { () throws(MIDIFileIssue) in
            let read = try MIDIFileReader.read(contentsOf: path, mode: mode)
            return SequenceReport(file: path, sequence: read.sequence, warnings: read.warnings.map(\.description))
        }
    }

    private func streamed(_ path: String, _ mode: MIDIFileReader.Mode) -> Result<SequenceReport, MIDIFileIssue> {
        Result { () throws(MIDIFileIssue) in try SequenceReport(contentsOf: path, mode: mode) }
    }

    /// The paths (of `files`) whose streamed report or error differs from the collected one, in either mode.
    private func differences(_ paths: [String]) -> [String] {
        var differing: [String] = []
        for path in paths {
            for mode in [MIDIFileReader.Mode.lenient, .strict] where collected(path, mode) != streamed(path, mode) {
                differing.append("\(path) (\(mode))")
            }
        }
        return differing
    }

    private func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-report-\(UUID().uuidString).mid").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: Corpus.root != nil, "needs the corpus"),
          arguments: ["wellformed", "malformed", "synthetic", "fuzz-crashes"])
    func everyCorpusFileGivesTheSameReportOrError(folder: String) {
        let files = Corpus.files(in: folder).map(\.path)
        let differing = differences(files)
        let reports = files.filter { (try? collected($0, .lenient).get()) != nil }.count
        print("streamed report, corpus \(folder): \(files.count) files (\(reports) with a report), \(differing.count) differ")
        #expect(differing.isEmpty, "\(differing)")
        #expect(files.count > 10)
    }

    /// Running status carried into the next track, a chunk length short of End of Track (read on to
    /// it), one running into the next track, a truncated event, a missing End of Track, trailing bytes.
    @Test func repairedChunksGiveTheSameReportAndWarnings() throws {
        let tempo: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        let marker: [UInt8] = [0x00, 0xFF, 0x06, 0x03] + Array("Cue".utf8)
        let first = [0x00, 0x90, 0x3C, 0x64] + tempo + [0x10, 0x90, 0x40, 0x64] + marker + SMFBytes.endOfTrack
        let runningStatusStart: [UInt8] = [0x00, 0x3E, 0x50, 0x60, 0x3E, 0x00] + SMFBytes.endOfTrack
        let short = SMFBytes.note + SMFBytes.note + SMFBytes.endOfTrack
        let overlong = SMFBytes.note + SMFBytes.endOfTrack
        let truncated: [UInt8] = SMFBytes.note + [0x00, 0x90, 0x3C]
        let bytes = SMFBytes.header(tracks: 7)
            + SMFBytes.track(first)
            + SMFBytes.track(runningStatusStart)
            + SMFBytes.track(short, declaredLength: UInt32(short.count - 6))
            + SMFBytes.track(overlong, declaredLength: UInt32(overlong.count + 8))
            + SMFBytes.track(SMFBytes.note)
            + SMFBytes.track(truncated)
            + [0x00, 0x01, 0x02]
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let report = try streamed(path, .lenient).get()
        #expect(report.warnings.count >= 5, "\(report.warnings)")
        #expect(report.notes.count == 8)
        #expect(report.markers.map(\.value) == ["Cue"])
        #expect(differences([path]).isEmpty)
        #expect(throws: MIDIFileIssue.self) { try streamed(path, .strict).get() }
    }

    /// Seeded songs of several tracks, notes of different tracks on the same ticks and keys (so the
    /// merge order decides the polyphony and the pairing), texts and tempos on shared ticks, as
    /// format 1 and as format 2 (an empty pattern and patterns without a tempo among them), with PPQN
    /// and SMPTE timing.
    @Test(arguments: [1, 2])
    func mergedTracksGiveTheSameReport(format: Int) throws {
        var generator = SeededGenerator(seed: UInt64(format))
        var paths: [String] = []
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        for division in [Division.ticksPerQuarter(96), .smpte(framesPerSecond: 25, ticksPerFrame: 40)] {
            var tracks: [MusicTrack] = [MusicTrack()]
            for trackIndex in 0..<6 {
                var events: [TimedEvent] = []
                var tick: Int64 = 0
                for _ in 0..<400 {
                    tick += Int64.random(in: 0...3, using: &generator) * 24
                    let channel = UInt8.random(in: 0...2, using: &generator) * 9 / 2
                    let key = UInt8.random(in: 60...63, using: &generator)
                    switch Int.random(in: 0..<20, using: &generator) {
                    case 0: events.append(TimedEvent(tick: tick, .meta(.tempo(microsecondsPerQuarter: UInt32.random(in: 300_000...900_000, using: &generator)))))
                    case 1: events.append(TimedEvent(tick: tick, .meta(.text(.lyric, Array("la".utf8)))))
                    case 2: events.append(TimedEvent(tick: tick, .meta(.text(.marker, Array("M\(trackIndex)".utf8)))))
                    case 3: events.append(TimedEvent(tick: tick, .meta(.timeSignature(numerator: 3, denominatorPower: 3, clocksPerClick: 24, thirtySecondsPerQuarter: 8))))
                    case 4...11: events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: key, velocity: 80))))
                    default: events.append(TimedEvent(tick: tick, .midi(.noteOff(channel: channel, note: key, velocity: 0))))
                    }
                }
                events.append(TimedEvent(tick: tick, .meta(.endOfTrack)))
                tracks.append(MusicTrack(events: events))
            }
            tracks[0] = MusicTrack(events: [TimedEvent(tick: 0, .meta(.text(.trackName, Array("Song".utf8)))), TimedEvent(tick: 0, .meta(.endOfTrack))])
            let sequence = MusicSequence(format: format, division: division, tracks: tracks)
            var bytes = try MIDIFileWriter.write(sequence)
            if format == 2 {
                bytes += SMFBytes.track([])  // an empty pattern: repaired (no End of Track), lasting no time
                bytes[11] += 1
            }
            paths.append(try temporaryFile(bytes))
        }
        let reports = try paths.map { try streamed($0, .lenient).get() }
        #expect(reports.allSatisfy { $0.notes.count > 500 && $0.notes.polyphonyPeak > 1 && !$0.markers.isEmpty })
        #expect(differences(paths).isEmpty)
    }
}
