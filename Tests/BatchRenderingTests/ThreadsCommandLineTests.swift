import Foundation
import TestSupport
import XCTest

/// `--threads` and `--jobs` decide who renders, not what: a song rendered to 16-bit and 24-bit WAV
/// by `seqplay -o` on 1, 2 and 3 threads and by `seqplay render --jobs 1|2` is the same bytes (the
/// samples; `-o` also tags the file with the song's title and copyright, a batch does not).
final class ThreadsCommandLineTests: BatchTestCase {
    func testOutputsAreTheSameBytesWhateverThreadsAndJobs() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        let song = Self.packageRoot.appendingPathComponent("Songs/pachelbel-canon.mid").path
        try FileManager.default.copyItem(atPath: song, toPath: root + "/canon.mid")
        for depth in ["16", "24"] {
            var outputs: [String: Data] = [:]
            for threads in ["1", "2", "3"] {
                let path = "\(out)/t\(threads)-\(depth).wav"
                let run = try seqplay([root + "/canon.mid", "-o", path, "--sf2", Self.generalMIDIFont, "--bit-depth", depth, "--threads", threads])
                XCTAssertEqual(run.status, 0, run.standardError)
                outputs["--threads \(threads)"] = try samples(path)
            }
            for jobs in ["1", "2"] {
                let directory = "\(out)/jobs\(jobs)-\(depth)"
                let run = try seqplay(["render", root, root + "/canon.mid", "--output-dir", directory, "--sf2", Self.generalMIDIFont,
                                       "--bit-depth", depth, "--jobs", jobs])
                XCTAssertEqual(run.status, 0, run.standardError)
                outputs["--jobs \(jobs)"] = try samples(directory + "/canon.wav")
            }
            let reference = try XCTUnwrap(outputs["--threads 1"])
            XCTAssertGreaterThan(reference.count, 1_000_000)
            for (name, data) in outputs { XCTAssertTrue(data == reference, "\(depth)-bit \(name) differs from --threads 1") }
        }
    }

    /// "Every core" is every core seqplay may run on: pinned to one with `taskset -c 0`, a render
    /// uses one thread (and no memory to render ahead); unpinned, as many as the machine has cores
    /// (up to the song's two channel groups). `--dry-run` says how many.
    func testDefaultThreadsAreTheCoresSeqplayMayRunOn() throws {
        let song = Self.packageRoot.appendingPathComponent("Songs/pachelbel-canon.mid").path
        let arguments = [song, "-o", try temporaryDirectory() + "/canon.wav", "--sf2", Self.generalMIDIFont, "--dry-run"]
        // The cores this test may run on, as coreutils' nproc counts them (its CPU affinity).
        let cores = try XCTUnwrap(Int(try runCommand(URL(fileURLWithPath: "/usr/bin/nproc"), []).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        for (launcher, expected) in [([String](), min(cores, 2)), (["taskset", "-c", "0"], 1)] {
            let run = try seqplay(arguments, launcher: launcher)
            XCTAssertEqual(run.status, 0, run.standardError)
            XCTAssertTrue(run.standardOutput.contains("threads:  \(expected), rendering 2 channel groups"),
                          "\(launcher.joined(separator: " ")): \(run.standardOutput)")
        }
    }

    /// The `fmt ` and `data` chunks of a RIFF WAV file.
    func samples(_ path: String) throws -> Data {
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        var kept = Data(), offset = 12
        while offset + 8 <= file.count {
            let id = String(decoding: file[offset..<offset + 4], as: UTF8.self)
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7]) << 24
            if id == "fmt " || id == "data" { kept += file[offset..<min(file.count, offset + 8 + size)] }
            offset += 8 + size + size % 2
        }
        return kept
    }
}
