import AudioFiles
import Rendering
import Foundation
import MIDIFile
import RenderTestSupport
import TestSupport
import XCTest

final class LabelsAndManifestTests: BatchTestCase {
    static let clickFont = packageRoot.appendingPathComponent("SoundFonts/click.sf2").path

    /// 1200 tempo changes: every label is the click's exact tempo-map sample, and the click is heard
    /// within 32 samples of it.
    func testLabelsAreTheExactTempoMapTimesAndTheClicksSoundThere() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        let song = TempoStressSong()
        try MIDIFileWriter.write(song.sequence, to: root + "/stress.mid")
        var settings = BatchRenderSettings(outputDirectory: out, soundFontPaths: [Self.clickFont])
        settings.writesLabels = true
        settings.sampleFormat = .float32
        let results = try BatchRenderer(inputs: BatchInputDiscovery.discover([root]).inputs, settings: settings).run { _ in
            var options = RenderOptions()
            options.sampler.reverb.isEnabled = false
            options.sampler.chorus.isEnabled = false
            options.tail = .fixed(seconds: 0.2)
            return options
        }
        XCTAssertEqual(results.count, 1)
        let lines = try String(contentsOfFile: out + "/stress.labels.csv", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.first, "onset_seconds,offset_seconds,onset_sample,offset_sample,pitch,velocity,channel,program,stem")
        let rows = lines.dropFirst().map { $0.split(separator: ",").map(String.init) }
        let expected = song.clickSampleTimes(sampleRate: 44_100)
        XCTAssertEqual(rows.count, expected.count)
        // Each onset is the sample the exact tempo-map time falls in (the scheduler's floor of it).
        let exact = song.clickTicks.map { Self.seconds(atTick: $0, in: song) * 44_100 }
        for (row, time) in zip(rows, exact) {
            let label = Double(row[2])!
            XCTAssertTrue(label <= time + 1e-6 && time - label < 1, "label \(label), exact \(time)")
        }
        for row in rows {
            XCTAssertEqual(Double(row[0])!, Double(row[2])! / 44_100, accuracy: 1e-9)
            XCTAssertLessThan(Int(row[2])!, Int(row[3])!)
            XCTAssertEqual(row[8], "mix")
        }
        let audio = try AudioFileReader(path: out + "/stress.wav").readAll()
        let report = OnsetTiming.compare(onsets: OnsetTiming.onsets(in: audio[0]), expected: expected)
        print("batch labels vs audio, \(song.tempoChanges.count) tempo changes: \(report)")
        XCTAssertEqual(report.foundCount, report.expectedCount)
        XCTAssertLessThanOrEqual(report.maximumError, 32)
    }

    /// Seconds at `tick` summed segment by segment from the song's own tempo list (independent of TempoMap).
    private static func seconds(atTick tick: Int64, in song: TempoStressSong) -> Double {
        var microseconds = 0.0
        for (index, change) in song.tempoChanges.enumerated() where change.tick < tick {
            let end = min(tick, index + 1 < song.tempoChanges.count ? song.tempoChanges[index + 1].tick : tick)
            microseconds += Double(end - change.tick) * Double(change.microsecondsPerQuarter) / Double(song.ticksPerQuarter)
        }
        return microseconds / 1_000_000
    }

    func testManifestHasALinePerInput() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 3, seconds: 1)
        _ = FileManager.default.createFile(atPath: root + "/bad.mid", contents: Data("nope".utf8))
        let manifest = out + "/manifest.jsonl"
        let run = try seqplay(["render", root, "--output-dir", out + "/audio", "--manifest", manifest, "--sf2", Self.generalMIDIFont])
        XCTAssertEqual(run.status, 2, run.standardError)
        let entries = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(entries.count, 4)
        let bad = try XCTUnwrap(entries.first { ($0["input"] as? String)?.hasSuffix("bad.mid") == true })
        XCTAssertEqual(bad["status"] as? String, "failed")
        XCTAssertTrue((bad["reason"] as? String)?.contains("bad.mid") == true)
        let good = try XCTUnwrap(entries.first { ($0["input"] as? String)?.hasSuffix("/song0.mid") == true })
        XCTAssertEqual(good["status"] as? String, "rendered")
        XCTAssertEqual(good["sample_rate"] as? Int, 44_100)
        let frames = try XCTUnwrap(good["frames"] as? Int)
        XCTAssertEqual(Int64(frames), try AudioFileReader(path: out + "/audio/song0.wav").frameCount)
        XCTAssertEqual(good["soundfonts"] as? [String], [Self.generalMIDIFont])
        let loudness = try XCTUnwrap(good["loudness_lufs"] as? Double)
        XCTAssertTrue((-60.0 ... -5.0).contains(loudness), "\(loudness)")
        let stems = try XCTUnwrap(good["parts"] as? [[String: Any]])
        XCTAssertEqual(stems.map { $0["channel"] as? Int }, [1, 2, 4, 10])
        XCTAssertEqual(stems.last?["drums"] as? Bool, true)
        XCTAssertEqual(stems[1]["instrument"] as? String, "Electric Bass (finger)")
        // A rerun: every output skipped, with its length from the file.
        let rerun = try seqplay(["render", root, "--output-dir", out + "/audio", "--manifest", manifest, "--sf2", Self.generalMIDIFont])
        XCTAssertEqual(rerun.status, 2)
        let again = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(again.filter { $0.contains(#""status":"skipped""#) }.count, 3)
        XCTAssertTrue(again.contains { $0.contains(#""frames":\#(frames)"#) })
    }
}
