import AudioFiles
import Foundation
import XCTest

/// Runs the built `seqplay` binary: a render that works, and each kind of bad input with its
/// message and exit status, leaving no file behind.
final class CommandLineTests: RenderTestCase {
    /// The names in `directory` (hidden temporary files included).
    private func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
    }

    func testRendersASongToEachFormatAndBitDepth() throws {
        let directory = try temporaryDirectory()
        for (name, extra, expectedFormat) in [("song.wav", ["--bit-depth", "24"], AudioFileFormat.wav),
                                              ("song.flac", [], .flac), ("song.aiff", ["--bit-depth", "float"], .aiff),
                                              ("song.ogg", [], .ogg), ("song.bin", ["--format", "wav"], .wav)] {
            let path = directory.appendingPathComponent(name).path
            let run = try seqplay([song, "--sf2", Self.generalMIDIFont, "-o", path, "-r", "22050", "--no-reverb", "--tail", "0.5"] + extra)
            XCTAssertEqual(run.status, 0, run.standardError)
            XCTAssertEqual(run.standardError, "", "nothing on stderr when it is not a terminal")
            let reader = try AudioFileReader(path: path)
            XCTAssertEqual(reader.format, expectedFormat)
            XCTAssertEqual(reader.sampleRate, 22_050)
            XCTAssertEqual(reader.channelCount, 2)
            XCTAssertGreaterThan(reader.frameCount, 22_050 * 10)
        }
        XCTAssertEqual(try contents(of: directory).filter { $0.hasPrefix(".") }, [], "no temporary files left")
    }

    func testStreamsWAVToStandardOutput() throws {
        let run = try seqplay([song, "--sf2", Self.clickFont, "-o", "-", "--tail", "0"])
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(String(decoding: run.standardOutput.prefix(4), as: UTF8.self), "RIFF")
        XCTAssertEqual(String(decoding: run.standardOutput[8..<12], as: UTF8.self), "WAVE")
        XCTAssertGreaterThan(run.standardOutput.count, 44_100 * 4 * 10)
    }

    func testUsesTheSoundFontNamedBySEQPLAY_SOUNDFONT() throws {
        let path = try temporaryDirectory().appendingPathComponent("song.wav").path
        let ok = try seqplay([song, "-o", path, "--tail", "0"], environment: ["SEQPLAY_SOUNDFONT": Self.clickFont])
        XCTAssertEqual(ok.status, 0, ok.standardError)
        let missing = try seqplay([song, "-o", path], environment: ["SEQPLAY_SOUNDFONT": "/nonexistent/font.sf2"])
        XCTAssertEqual(missing.status, 5, "a SoundFont that cannot be read is exit 5, as any unreadable file")
        XCTAssertTrue(missing.standardError.contains("/nonexistent/font.sf2"), missing.standardError)
    }

    func testTruncatedMIDIFileExits3() throws {
        let directory = try temporaryDirectory()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: song))
        let header = directory.appendingPathComponent("header.mid"), middle = directory.appendingPathComponent("middle.mid")
        try bytes.prefix(10).write(to: header)
        try bytes.prefix(bytes.count / 2).write(to: middle)
        let output = directory.appendingPathComponent("out.wav").path

        let cut = try seqplay([header.path, "--sf2", Self.clickFont, "-o", output])
        XCTAssertEqual(cut.status, 3)
        XCTAssertTrue(cut.standardError.contains("header.mid"), cut.standardError)
        let strict = try seqplay([middle.path, "--sf2", Self.clickFont, "-o", output, "--strict"])
        XCTAssertEqual(strict.status, 3)
        XCTAssertTrue(strict.standardError.contains("middle.mid"), strict.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))

        let lenient = try seqplay([middle.path, "--sf2", Self.clickFont, "-o", output, "--tail", "0"])
        XCTAssertEqual(lenient.status, 0, "a file cut inside a track plays what is there")
        XCTAssertTrue(lenient.standardError.contains("repaired"), lenient.standardError)
    }

    func testCorruptSoundFontExits4AndWritesNothing() throws {
        let directory = try temporaryDirectory()
        var font = try Data(contentsOf: URL(fileURLWithPath: Self.generalMIDIFont))
        font.replaceSubrange(8..<12, with: Array("WAVE".utf8))
        let fontPath = directory.appendingPathComponent("corrupt.sf2").path
        try font.write(to: URL(fileURLWithPath: fontPath))
        let output = directory.appendingPathComponent("out.wav")
        let run = try seqplay([song, "--sf2", fontPath, "-o", output.path])
        XCTAssertEqual(run.status, 4)
        XCTAssertTrue(run.standardError.contains("corrupt.sf2"), run.standardError)
        XCTAssertEqual(try contents(of: directory), ["corrupt.sf2"])
    }

    func testUnwritableOutputExits5() throws {
        let directory = try temporaryDirectory()
        let readOnly = directory.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
        for output in ["/nonexistent/dir/out.wav", readOnly.appendingPathComponent("out.wav").path] {
            let run = try seqplay([song, "--sf2", Self.clickFont, "-o", output])
            if getuid() == 0 && output.hasPrefix(readOnly.path) { continue }  // root writes anywhere
            XCTAssertEqual(run.status, 5, run.standardError)
            XCTAssertTrue(run.standardError.contains(output), run.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
    }

    func testMissingMIDIFileExits5() throws {
        let run = try seqplay(["/nonexistent/song.mid", "--sf2", Self.clickFont, "-o", "/tmp/x.wav"])
        XCTAssertEqual(run.status, 5)
        XCTAssertTrue(run.standardError.contains("/nonexistent/song.mid"), run.standardError)
    }

    func testUsageErrorsExit64() throws {
        for arguments in [[song, "--bogus"], [song, "-o", "x.wav", "--loop", "0"], [song, "-o", "x.xyz"],
                          [song, "-o", "x.wav", "--mute-channel", "17"], [song, "-o", "x.wav", "--start", "soon"],
                          [song, "-o", "x.flac", "--bit-depth", "float"], [song, "-o", "x.wav", "--solo", "9"]] {
            let run = try seqplay(arguments + ["--sf2", Self.clickFont])
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.standardError)")
            XCTAssertFalse(run.standardError.isEmpty)
        }
    }

    func testWithoutASoundCardPlaybackSuggestsRenderingToAFile() throws {
        try XCTSkipIf(FileManager.default.fileExists(atPath: "/dev/snd"), "this machine has sound")
        let run = try seqplay([song, "--sf2", Self.clickFont])
        XCTAssertEqual(run.status, 5)
        XCTAssertTrue(run.standardError.contains("no sound card"), run.standardError)
        XCTAssertTrue(run.standardError.contains("-o song.wav"), run.standardError)
    }

    func testInfoStillWorks() throws {
        let run = try seqplay(["info", song])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(String(decoding: run.standardOutput, as: UTF8.self).contains("Format:"))
    }
}
