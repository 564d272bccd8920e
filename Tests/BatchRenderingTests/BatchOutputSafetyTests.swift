import Foundation
import MIDIFile
import TestSupport
import XCTest

/// `seqplay render … --output-dir` never destroys or silently replaces what is there (issue 29): no two inputs
/// written to one output, a dry run writes nothing, a rerun keeps what the manifest knew and restores a deleted
/// stem or labels file, a batch that cannot start (a bad font) leaves the manifest as it was, and a rerun
/// interrupted by SIGINT keeps the manifest lines of the outputs it did not reach.
final class BatchOutputSafetyTests: BatchTestCase {
    private var font: [String] { ["--sf2", Self.generalMIDIFont] }

    /// Writes `Self.song(seed:seconds:)` to `root/relative`, making its folders.
    private func writeSong(_ relative: String, in root: String, seed: Int, seconds: Int = 1) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try MIDIFileWriter.write(Self.song(seed: seed, seconds: seconds), to: path)
    }

    /// The manifest's lines, by output path.
    private func manifestEntries(_ path: String) throws -> [String: [String: Any]] {
        var entries: [String: [String: Any]] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let entry = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            entries[try XCTUnwrap(entry["output"] as? String)] = entry
        }
        return entries
    }

    func testInputsOfOneOutputNameEachGetTheirOwnOutput() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeSong("a/x/song.mid", in: root, seed: 1)
        try writeSong("a/y/song.mid", in: root, seed: 2)
        try writeSong("c/t.mid", in: root, seed: 3)
        try writeSong("c/t.kar", in: root, seed: 4)
        // Files named directly, outside the current directory, in two folders: mirrored under the one they share.
        let named = try seqplay(["render", root + "/a/x/song.mid", root + "/a/y/song.mid", "--output-dir", out + "/named"] + font)
        XCTAssertEqual(named.status, 0, named.standardError)
        XCTAssertEqual(files(under: out + "/named"), ["x/song.wav", "y/song.wav"])
        XCTAssertTrue(named.standardError.hasSuffix("seqplay: 2 rendered, 0 already there, 0 failed\n"), named.standardError)
        XCTAssertFalse(named.standardError.contains("would both be"), named.standardError)
        // t.mid and t.kar in one folder: the extension kept in the name, and said.
        let folder = try seqplay(["render", root + "/c", "--output-dir", out + "/folder", "--labels"] + font)
        XCTAssertEqual(folder.status, 0, folder.standardError)
        XCTAssertEqual(files(under: out + "/folder"), ["t.kar.labels.csv", "t.kar.wav", "t.mid.labels.csv", "t.mid.wav"])
        XCTAssertTrue(folder.standardError.hasPrefix("seqplay: \(root)/c/t.kar and \(root)/c/t.mid would both be \(out)/folder/t.wav: "
            + "written as \(out)/folder/t.kar.wav and \(out)/folder/t.mid.wav\n"), folder.standardError)
        // Each output is its own song: the two renders differ, and each is the song rendered by itself.
        let alone = try seqplay([root + "/c/t.kar", "-o", out + "/t.kar.wav"] + font)
        XCTAssertEqual(alone.status, 0, alone.standardError)
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/folder/t.kar.wav"), FileManager.default.contents(atPath: out + "/t.kar.wav"))
        XCTAssertNotEqual(FileManager.default.contents(atPath: out + "/folder/t.kar.wav"), FileManager.default.contents(atPath: out + "/folder/t.mid.wav"))
        // A list of files in many folders (as `library query --paths` prints it) mirrors them.
        let listed = try seqplay(["render", "-", "--output-dir", out + "/listed"] + font,
                                 standardInput: ["a/x/song.mid", "a/y/song.mid", "c/t.mid"].map { root + "/" + $0 }.joined(separator: "\n"))
        XCTAssertEqual(listed.status, 0, listed.standardError)
        XCTAssertEqual(files(under: out + "/listed"), ["a/x/song.wav", "a/y/song.wav", "c/t.wav"])
    }

    func testADryRunWritesNothingAndSaysWhatItWouldDo() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory() + "/out"
        try writeCorpus(in: root, count: 3, seconds: 1)
        let arguments = ["render", root, "--output-dir", out, "--manifest", out + "/manifest.jsonl", "--labels", "--dry-run"] + font
        let dry = try seqplay(arguments)
        XCTAssertEqual(dry.status, 0, dry.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing made: \(files(under: out))")
        XCTAssertEqual(dry.standardOutput, """
            render  \(root)/set1/deeper/song1.mid -> \(out)/set1/deeper/song1.wav (with its labels)
            render  \(root)/set2/deeper/song2.mid -> \(out)/set2/deeper/song2.wav (with its labels)
            render  \(root)/song0.mid -> \(out)/song0.wav (with its labels)
            manifest \(out)/manifest.jsonl
            dry run, nothing written: 3 to render, 0 finished, 0 failed

            """)
        let real = try seqplay(arguments.filter { $0 != "--dry-run" })
        XCTAssertEqual(real.status, 0, real.standardError)
        let written = files(under: out)
        try FileManager.default.removeItem(atPath: out + "/song0.labels.csv")
        let again = try seqplay(arguments)
        XCTAssertEqual(again.status, 0, again.standardError)
        XCTAssertTrue(again.standardOutput.contains("skip    \(root)/set1/deeper/song1.mid -> \(out)/set1/deeper/song1.wav (finished)\n"),
                      again.standardOutput)
        XCTAssertTrue(again.standardOutput.contains("render  \(root)/song0.mid -> \(out)/song0.wav (with its labels)\n"), again.standardOutput)
        XCTAssertTrue(again.standardOutput.hasSuffix("dry run, nothing written: 1 to render, 2 finished, 0 failed\n"), again.standardOutput)
        XCTAssertEqual(files(under: out), written.filter { $0 != "song0.labels.csv" }, "the dry rerun wrote nothing either")
    }

    /// A rerun keeps in the rewritten manifest what the first run measured of the outputs it skips, and renders
    /// again the songs whose stem or labels file was deleted (the same bytes as before).
    func testARerunKeepsWhatTheManifestKnewAndRestoresDeletedStemsAndLabels() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 3, seconds: 1)
        let manifest = out + "/manifest.jsonl"
        let arguments = ["render", root, "--output-dir", out, "--manifest", manifest, "--stems", "channel", "--labels"] + font
        let first = try seqplay(arguments)
        XCTAssertEqual(first.status, 0, first.standardError)
        let known = try manifestEntries(manifest)
        let stem = out + "/song0.ch02.wav", labels = out + "/set1/deeper/song1.labels.csv"
        let stemBytes = try XCTUnwrap(FileManager.default.contents(atPath: stem))
        let labelsBytes = try XCTUnwrap(FileManager.default.contents(atPath: labels))
        try FileManager.default.removeItem(atPath: stem)
        try FileManager.default.removeItem(atPath: labels)
        let rerun = try seqplay(arguments)
        XCTAssertEqual(rerun.status, 0, rerun.standardError)
        XCTAssertTrue(rerun.standardError.contains("2 rendered, 1 already there, 0 failed"), rerun.standardError)
        XCTAssertEqual(FileManager.default.contents(atPath: stem), stemBytes, "the deleted stem is back, as it was")
        XCTAssertEqual(FileManager.default.contents(atPath: labels), labelsBytes, "the deleted labels are back, as they were")
        let entries = try manifestEntries(manifest)
        XCTAssertEqual(Set(entries.keys), Set(known.keys))
        let skipped = try XCTUnwrap(entries[out + "/set2/deeper/song2.wav"])
        let before = try XCTUnwrap(known[out + "/set2/deeper/song2.wav"])
        XCTAssertEqual(skipped["status"] as? String, "skipped")
        for key in ["loudness_lufs", "peak", "peak_dbfs", "frames", "sample_rate", "labels"] {
            XCTAssertEqual(skipped[key] as? NSObject, before[key] as? NSObject, key)
        }
        XCTAssertEqual((skipped["parts"] as? [Any])?.count, (before["parts"] as? [Any])?.count)
        XCTAssertEqual((skipped["stems"] as? [[String: Any]])?.map { $0["file"] as? String }, (before["stems"] as? [[String: Any]])?.map { $0["file"] as? String })
        XCTAssertEqual(entries[out + "/song0.wav"]?["status"] as? String, "rendered")
        // A third run finds everything, stems included.
        let third = try seqplay(arguments)
        XCTAssertTrue(third.standardError.contains("0 rendered, 3 already there, 0 failed"), third.standardError)
    }

    func testABatchThatCannotStartLeavesTheManifestAsItWas() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 2, seconds: 1)
        let manifest = out + "/manifest.jsonl"
        try Data("{\"kept\":true}\n".utf8).write(to: URL(fileURLWithPath: manifest))
        let badFont = out + "/bad.sf2"
        try Data("not a font".utf8).write(to: URL(fileURLWithPath: badFont))
        let run = try seqplay(["render", root, "--output-dir", out + "/audio", "--manifest", manifest, "--sf2", badFont])
        XCTAssertEqual(run.status, 4, run.standardError)
        XCTAssertEqual(run.standardError.split(separator: "\n").count, 1, run.standardError)
        XCTAssertEqual(try String(contentsOfFile: manifest, encoding: .utf8), "{\"kept\":true}\n")
        XCTAssertEqual(files(under: out), ["bad.sf2", "manifest.jsonl"], "no output directory made")
    }

    /// A forced rerun interrupted by SIGINT: exit 130, and the manifest still has a line for every output,
    /// those it did not reach as the first run described them.
    func testARerunInterruptedKeepsTheLinesOfWhatItDidNotReach() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 8, seconds: 4)
        let manifest = out + "/manifest.jsonl"
        let arguments = ["render", root, "--output-dir", out + "/audio", "--manifest", manifest, "--jobs", "1"] + font
        let first = try seqplay(arguments)
        XCTAssertEqual(first.status, 0, first.standardError)
        let known = try manifestEntries(manifest), firstLines = try String(contentsOfFile: manifest, encoding: .utf8)
        let process = try ChildProcess(seqplayBinary, arguments + ["--force"], standardError: .capture)
        // Interrupted once the rerun has written its first line (the manifest rewritten, one song rendered again).
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let lines = (try? String(contentsOfFile: manifest, encoding: .utf8)) ?? ""
            if !lines.isEmpty, lines != firstLines { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.exitStatus, 130, process.standardErrorText)
        let entries = try manifestEntries(manifest)
        XCTAssertEqual(Set(entries.keys), Set(known.keys), "a line for every output")
        let statuses = entries.values.compactMap { $0["status"] as? String }
        XCTAssertGreaterThan(statuses.filter { $0 == "skipped" }.count, 0, "interrupted before the end")
        for (output, entry) in entries where entry["status"] as? String == "skipped" {
            XCTAssertEqual(entry["loudness_lufs"] as? NSObject, known[output]?["loudness_lufs"] as? NSObject, output)
        }
    }
}
