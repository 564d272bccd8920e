import Foundation
import TestSupport
import XCTest

/// `-o` to MP3, Opus and Ogg Vorbis (decoded by ffmpeg, tags read by ffprobe and soxi), `--quality`,
/// and `--dry-run`'s size estimate against the files then written.
final class OutputFormatTests: RenderTestCase {
    private var shortSong: [String] {
        [Self.packageRoot.appendingPathComponent("Songs/bach-prelude-c.mid").path, "--end", "6", "--tail", "1", "--sf2", Self.generalMIDIFont]
    }

    private func shell(_ command: String) throws -> String {
        let run = try runShell(command)
        XCTAssertEqual(run.status, 0, command + run.standardError)
        return run.standardOutput
    }

    /// The frame count `--dry-run` announces for rendering to `path`.
    private func announcedFrames(_ arguments: [String]) throws -> Int {
        let run = try seqplay(arguments + ["--dry-run"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let text = String(decoding: run.standardOutput, as: UTF8.self)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("duration:") }, text)
        return try XCTUnwrap(Int(line.split(separator: " ")[3]), text)
    }

    func testMP3AndOpusDecodeToTheRenderedLengthAndCarryTheTags() throws {
        let folder = try temporaryDirectory()
        // Codec frames: MP3 1152 samples, Opus 20 ms (960 at 48 kHz), Vorbis blocks up to 2048.
        for (format, codecFrame, rate) in [("mp3", 1152, 44_100), ("opus", 960, 48_000), ("ogg", 2048, 44_100)] {
            let path = folder.appendingPathComponent("song.\(format)").path
            let arguments = shortSong + ["-o", path]
            let expected = try announcedFrames(arguments)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "--dry-run writes nothing")
            let run = try seqplay(arguments)
            XCTAssertEqual(run.status, 0, run.standardError)
            let decodedBytes = try shell("ffmpeg -v error -i '\(path)' -f s16le -ac 2 -ar \(rate) - | wc -c")
            let decoded = try XCTUnwrap(Int(decodedBytes.trimmingCharacters(in: .whitespacesAndNewlines))) / 4
            print("\(format): \(decoded) frames decoded by ffmpeg, \(expected) rendered")
            XCTAssertLessThanOrEqual(abs(decoded - expected), codecFrame, format)
            XCTAssertEqual(try shell("ffprobe -v error -show_entries stream=sample_rate -of csv=p=0 '\(path)'").trimmingCharacters(in: .whitespacesAndNewlines), "\(rate)")

            let tags = try shell("ffprobe -v error -show_entries format_tags:stream_tags -of flat '\(path)'").lowercased()
            XCTAssertTrue(tags.contains("prelude in c major, bwv 846"), "\(format) title: \(tags)")
            XCTAssertTrue(tags.contains("composition in the public domain"), "\(format) copyright: \(tags)")
            XCTAssertTrue(tags.contains("seqplay"), "\(format) software: \(tags)")
            if format == "ogg" {
                XCTAssertTrue(try shell("soxi -a '\(path)'").contains("TITLE=Prelude in C major, BWV 846"))
            }
        }
    }

    func testQualityChangesTheSizeOfLossyFiles() throws {
        let folder = try temporaryDirectory()
        for format in ["mp3", "opus", "ogg"] {
            var sizes: [Int] = []
            for quality in ["1", "9"] {
                let path = folder.appendingPathComponent("q\(quality).\(format)").path
                let run = try seqplay(shortSong + ["-o", path, "--quality", quality])
                XCTAssertEqual(run.status, 0, run.standardError)
                sizes.append(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
            }
            print("\(format): quality 1 \(sizes[0]) bytes, quality 9 \(sizes[1]) bytes")
            XCTAssertLessThan(Double(sizes[0]) * 1.3, Double(sizes[1]), format)
        }
        let wav = folder.appendingPathComponent("x.wav").path
        let refused = try seqplay(shortSong + ["-o", wav, "--quality", "5"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.standardError.contains("wav has no quality"), refused.standardError)
        XCTAssertEqual(try seqplay(shortSong + ["-o", wav, "--quality", "11"]).status, 64)
    }

    func testDryRunSizeIsWithinOnePercentForPCM() throws {
        let folder = try temporaryDirectory()
        for (name, extra) in [("a.wav", []), ("b.wav", ["--bit-depth", "24"]), ("c.wav", ["--bit-depth", "float"]),
                              ("d.aiff", []), ("e.aiff", ["--bit-depth", "32"]), ("f.wav", ["-r", "22050"])] {
            let path = folder.appendingPathComponent(name).path
            let arguments = shortSong + ["-o", path] + extra
            let run = try seqplay(arguments + ["--dry-run"])
            let text = String(decoding: run.standardOutput, as: UTF8.self)
            let sizeLine = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("size:") }, text)
            let estimate = try XCTUnwrap(Int(sizeLine.split(separator: "(")[1].split(separator: " ")[0]), text)
            XCTAssertEqual(try seqplay(arguments).status, 0)
            let actual = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            print("\(name) \(extra): estimated \(estimate) bytes, wrote \(actual)")
            XCTAssertLessThanOrEqual(abs(Double(estimate - actual)) / Double(actual), 0.01, "\(name) \(extra)")
        }
    }
}
