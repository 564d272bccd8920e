import AudioFiles
import Foundation
import MIDIFile
import Rendering
import TestSupport
import XCTest

/// `seqplay render … --output-dir`: the built binary, run as a user (and a scheduler) would.
final class BatchCommandLineTests: BatchTestCase {
    private var font: [String] { ["--sf2", Self.generalMIDIFont] }

    func testRendersFilesDirectoriesAndAListOnStandardInputAndExitsTwoWhenSomeFailed() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        let songs = try writeCorpus(in: root, count: 4, seconds: 1)
        _ = FileManager.default.createFile(atPath: root + "/bad.mid", contents: Data("not midi".utf8))
        let run = try seqplay(["render", root + "/set1", "-", "--output-dir", out, "--jobs", "2"] + font,
                              standardInput: "\(root)/song0.mid\n\(root)/bad.mid\n")
        XCTAssertEqual(run.status, 2, run.standardError)
        XCTAssertTrue(run.standardError.contains("\(root)/bad.mid: "), run.standardError)
        XCTAssertTrue(run.standardError.contains("2 rendered, 0 already there, 1 failed"), run.standardError)
        XCTAssertEqual(files(under: out), ["deeper/song1.wav", "song0.wav"])
        XCTAssertEqual(run.standardOutput, "", "data only on standard output")
        XCTAssertEqual(songs.count, 4)
    }

    func testOneSongWithoutOutputDirStillRendersToItsFile() throws {
        let root = try temporaryDirectory()
        try writeCorpus(in: root, count: 1, seconds: 1)
        let run = try seqplay([root + "/song0.mid", "-o", root + "/x.wav"] + font)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/x.wav"))
        let two = try seqplay([root + "/song0.mid", root + "/song0.mid", "-o", root + "/y.wav"] + font)
        XCTAssertEqual(two.status, 64)
        XCTAssertTrue(two.standardError.contains("--output-dir"), two.standardError)
    }

    /// What users run: `seqplay render DIR --jobs 1` and `--jobs 2` write exactly the bytes of
    /// `seqplay SONG -o OUT.wav` for every song, tags included (songs of different lengths, so the
    /// workers take them in an order other than the input order and each renders after different songs).
    func testCommandLineOutputsAreByteIdenticalWhateverJobsAndToASingleRender() throws {
        let root = try temporaryDirectory()
        var songs: [String] = []
        for (index, seconds) in [1, 4, 2, 3].enumerated() {
            let name = "song\(index).mid"
            var song = Self.song(seed: index, seconds: seconds)
            // A title and a copyright, which a single render writes as the file's tags.
            song.tracks[0].events.insert(contentsOf: [TimedEvent(tick: 0, .meta(.text(.trackName, Array("Song \(index)".utf8)))),
                                                      TimedEvent(tick: 0, .meta(.text(.copyright, Array("(c) seqplay".utf8))))], at: 0)
            try MIDIFileWriter.write(song, to: root + "/" + name)
            songs.append(name)
        }
        var batches: [Int: String] = [:]
        for jobs in [1, 2] {
            let out = try temporaryDirectory()
            let run = try seqplay(["render", root, "--output-dir", out, "--jobs", "\(jobs)"] + font)
            XCTAssertEqual(run.status, 0, run.standardError)
            batches[jobs] = out
        }
        for song in songs {
            let name = (song as NSString).deletingPathExtension + ".wav"
            let alone = try temporaryDirectory() + "/" + name
            let single = try seqplay([root + "/" + song, "-o", alone] + font)
            XCTAssertEqual(single.status, 0, single.standardError)
            let expected = try Data(contentsOf: URL(fileURLWithPath: alone))
            XCTAssertGreaterThan(expected.count, 44 + 44_100 * 4, song)
            for (jobs, out) in batches {
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)), expected, "\(song), --jobs \(jobs)")
            }
        }
    }

    /// `--font-for CH=FILE` names a font that is not among the `--sf2` fonts: a batch loads it first,
    /// as a single render does, and renders the same bytes (every song failed with "not loaded" before).
    func testAChannelFontRendersAsInASingleRender() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try MIDIFileWriter.write(Self.song(seed: 7, seconds: 2), to: root + "/song.mid")
        let click = Self.packageRoot.appendingPathComponent("SoundFonts/click.sf2").path
        let flags = font + ["--font-for", "1=\(click)"]
        let batch = try seqplay(["render", root, "--output-dir", out] + flags)
        XCTAssertEqual(batch.status, 0, batch.standardError)
        let alone = try temporaryDirectory() + "/song.wav"
        let single = try seqplay([root + "/song.mid", "-o", alone] + flags)
        XCTAssertEqual(single.status, 0, single.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/song.wav")), try Data(contentsOf: URL(fileURLWithPath: alone)))
    }

    /// Opus runs at 48 kHz, not the default 44.1: a batch renders at the rate the format takes, as
    /// a single render does (each song failed before).
    func testOpusOutputsRenderAtTheRateOpusTakes() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 2, seconds: 1)
        let run = try seqplay(["render", root, "--output-dir", out, "--format", "opus", "--quality", "5"] + font)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(files(under: out), ["set1/deeper/song1.opus", "song0.opus"])
        for name in files(under: out) {
            let file = try AudioFileReader(path: out + "/" + name)
            XCTAssertEqual(file.sampleRate, 48_000, name)
            XCTAssertGreaterThan(file.frameCount, 48_000, name)
        }
    }

    /// SIGKILL halfway, then the same command again: no partial file at any time, the rest
    /// rendered, the finished outputs untouched.
    func testABatchKilledHalfwayResumes() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        let songs = try writeCorpus(in: root, count: 10, seconds: 4)
        let arguments = ["render", root, "--output-dir", out, "--jobs", "1", "--bit-depth", "float"] + font
        let process = try ChildProcess(seqplayBinary, arguments, standardError: .null)
        let deadline = Date().addingTimeInterval(120)
        while visibleOutputs(out).count < 4, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        process.signal(SIGKILL)
        process.waitUntilExit()
        let finished = visibleOutputs(out)
        XCTAssertGreaterThanOrEqual(finished.count, 4)
        XCTAssertLessThan(finished.count, songs.count, "killed before the end")
        var dates: [String: Date] = [:]
        for name in finished {
            try assertComplete(out + "/" + name, song: root + "/" + (name as NSString).deletingPathExtension + ".mid")
            dates[name] = try FileManager.default.attributesOfItem(atPath: out + "/" + name)[.modificationDate] as? Date
        }
        let rerun = try seqplay(arguments)
        XCTAssertEqual(rerun.status, 0, rerun.standardError)
        XCTAssertTrue(rerun.standardError.contains("\(songs.count - finished.count) rendered, \(finished.count) already there, 0 failed"),
                      rerun.standardError)
        XCTAssertEqual(files(under: out), songs.map { ($0 as NSString).deletingPathExtension + ".wav" }.sorted(),
                       "every output, and no temporary file left")
        for name in visibleOutputs(out) {
            try assertComplete(out + "/" + name, song: root + "/" + (name as NSString).deletingPathExtension + ".mid")
            if let date = dates[name] {
                XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out + "/" + name)[.modificationDate] as? Date, date, name)
            }
        }
    }

    /// The README's GNU parallel form: three shards, three processes, every input rendered once.
    func testShardsWithGNUParallelRenderEveryInputExactlyOnce() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel") else {
            throw XCTSkip("GNU parallel is not installed (Scripts/setup installs it)")
        }
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        let songs = try writeCorpus(in: root, count: 12, seconds: 1)
        let process = try ChildProcess("/usr/bin/parallel", ["--will-cite", "--halt", "never", Self.seqplayPath, "render", root, "--output-dir", out + "/shard{}",
                             "--shard", "{}/3", "--jobs", "1"] + font + [":::", "1", "2", "3"],
                                       standardOutput: .null, standardError: .null)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        var seen: [String: Int] = [:]
        for shard in 1...3 {
            let outputs = files(under: out + "/shard\(shard)")
            XCTAssertFalse(outputs.isEmpty, "shard \(shard) of 3 got none of 12")
            for name in outputs { seen[name, default: 0] += 1 }
        }
        XCTAssertEqual(seen.keys.sorted(), songs.map { ($0 as NSString).deletingPathExtension + ".wav" }.sorted())
        XCTAssertEqual(Set(seen.values), [1])
    }

    /// Outputs (not the hidden temporary files of a write under way).
    private func visibleOutputs(_ directory: String) -> [String] {
        files(under: directory).filter { !($0 as NSString).lastPathComponent.hasPrefix(".") }
    }

    /// `path` holds exactly the song rendered alone (float, as the batch wrote it).
    private func assertComplete(_ path: String, song: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let alone = try renderAlone(song, options: RenderOptions().renderingToFile(threads: 1), sampleFormat: .float32)
        XCTAssertTrue(try sameAudio(try Data(contentsOf: URL(fileURLWithPath: path)), alone, float: true), path, file: file, line: line)
    }
}
