@testable import AudioFiles
import SeqplaySupport
import Foundation
import TestSupport
import XCTest

/// Where the writer's bytes go: devices and FIFOs written through, symbolic links followed, and
/// directories, read-only files, missing directories and the inputs themselves refused untouched.
final class OutputTargetTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "target") }
    override func tearDown() { scratch?.remove() }

    /// Writes 100 frames of mono WAV to `target` and finishes.
    func writeShortWAV(to target: String, protecting inputs: [String] = []) throws {
        let writer = try AudioFileWriter(path: target, format: .wav, sampleRate: 8_000, channelCount: 1, protecting: inputs)
        try writer.write(left: [Float](repeating: 0.25, count: 100), right: nil, frameCount: 100)
        try writer.finish()
    }

    func problem(writing target: String, protecting inputs: [String] = []) -> AudioFileError.Problem? {
        do {
            try writeShortWAV(to: target, protecting: inputs)
            return nil
        } catch {
            return (error as? AudioFileError)?.problem
        }
    }

    func testDevNullIsWrittenThroughNotReplaced() throws {
        XCTAssertEqual(try OutputTarget.resolve("/dev/null"), .stream(path: "/dev/null"))
        try writeShortWAV(to: "/dev/null")
        var status = stat()
        XCTAssertEqual(stat("/dev/null", &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a character device")
    }

    func testAFIFOsReaderGetsTheWholeStream() throws {
        let fifo = scratch.path("stream.wav")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let received = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var bytes = Data()
        Thread.detachNewThread {
            bytes = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            received.signal()
        }
        try writeShortWAV(to: fifo)
        XCTAssertEqual(received.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(bytes.count, 44 + 200, "streaming header and 100 16-bit samples")
        XCTAssertEqual(Array(bytes.prefix(4)), Array("RIFF".utf8))
        try bytes.write(to: scratch.url.appendingPathComponent("copy.wav"))
        XCTAssertEqual(try AudioFileReader(path: scratch.path("copy.wav")).readAll()[0].count, 100)
        XCTAssertEqual(try scratch.contents(), ["copy.wav", "stream.wav"], "no temporary file beside the FIFO")
    }

    func testAPipeTakesWAVOnly() throws {
        let fifo = scratch.path("stream.flac")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        Thread.detachNewThread { _ = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() }
        XCTAssertThrowsError(try AudioFileWriter(path: fifo, sampleRate: 8_000, channelCount: 1)) { error in
            XCTAssertEqual((error as? AudioFileError)?.problem, .streamMustBeWAV(.flac))
            XCTAssertTrue("\(error)".contains("a pipe, which takes WAV only"), "\(error)")
        }
    }

    func testASymbolicLinkIsFollowedAndItsTargetReplaced() throws {
        try Data("old".utf8).write(to: scratch.url.appendingPathComponent("real.wav"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.wav"), withDestinationPath: "real.wav")
        try FileManager.default.createSymbolicLink(atPath: scratch.path("dangling.wav"), withDestinationPath: "new.wav")
        try writeShortWAV(to: scratch.path("link.wav"))
        try writeShortWAV(to: scratch.path("dangling.wav"))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("link.wav")), "real.wav")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("dangling.wav")), "new.wav")
        XCTAssertEqual(try AudioFileReader(path: scratch.path("real.wav")).frameCount, 100)
        XCTAssertEqual(try AudioFileReader(path: scratch.path("new.wav")).frameCount, 100)
        XCTAssertEqual(try scratch.contents(), ["dangling.wav", "link.wav", "new.wav", "real.wav"])
    }

    func testReplacingKeepsThePermissions() throws {
        try Data("old".utf8).write(to: scratch.url.appendingPathComponent("out.wav"))
        XCTAssertEqual(chmod(scratch.path("out.wav"), 0o640), 0)
        try writeShortWAV(to: scratch.path("out.wav"))
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.path("out.wav"))[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o640)
    }

    func testRefusalsLeaveEverythingAsItWas() throws {
        try Data("read-only".utf8).write(to: scratch.url.appendingPathComponent("locked.wav"))
        XCTAssertEqual(chmod(scratch.path("locked.wav"), 0o444), 0)
        try Data("MThd".utf8).write(to: scratch.url.appendingPathComponent("song.mid"))
        XCTAssertEqual(link(scratch.path("song.mid"), scratch.path("hard-link.wav")), 0)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("song-link.wav"), withDestinationPath: "song.mid")
        try FileManager.default.createDirectory(atPath: scratch.path("folder"), withIntermediateDirectories: false)
        let inputs = [scratch.path("song.mid"), scratch.path("absent.sf2")]
        let cases: [(String, AudioFileError.Problem)] = [
            (scratch.path("locked.wav"), .readOnly),
            (scratch.path("folder"), .isDirectory),
            (scratch.path("song.mid"), .isInput(scratch.path("song.mid"))),
            (scratch.path("hard-link.wav"), .isInput(scratch.path("song.mid"))),
            (scratch.path("song-link.wav"), .isInput(scratch.path("song.mid"))),
            (scratch.path("missing/out.wav"), .noDirectory(scratch.path("missing"))),
        ]
        let before = try scratch.contents()
        for (target, expected) in cases {
            XCTAssertEqual(problem(writing: target, protecting: inputs), expected, target)
        }
        XCTAssertEqual(try scratch.contents(), before, "nothing created, nothing removed")
        XCTAssertEqual(try String(contentsOfFile: scratch.path("locked.wav"), encoding: .utf8), "read-only")
        XCTAssertEqual(try String(contentsOfFile: scratch.path("song.mid"), encoding: .utf8), "MThd")
        let message = "\(AudioFileError(path: scratch.path("song.mid"), problem: .isInput(scratch.path("song.mid"))))"
        XCTAssertTrue(message.contains("refusing to overwrite"), message)
    }

    func testSmallWAVIsPlainRIFF() throws {
        try writeShortWAV(to: scratch.path("small.wav"))
        let bytes = try Data(contentsOf: scratch.url.appendingPathComponent("small.wav"))
        XCTAssertEqual(Array(bytes.prefix(4)), Array("RIFF".utf8), "RF64 downgraded to WAV under 4 GiB")
        XCTAssertEqual(try AudioFileReader(path: scratch.path("small.wav")).format, .wav)
    }

    /// A WAV whose length is known to fit (a render) is a plain RIFF WAV: `fmt ` first, format tag 1
    /// (PCM) rather than the extensible header of a downgraded RF64, which some readers (Python's
    /// `wave`) refuse. One over 4 GiB, or of unknown length, is RF64 first.
    func testWAVOfKnownLengthThatFitsHasAPlainHeader() throws {
        let writer = try AudioFileWriter(path: scratch.path("known.wav"), sampleRate: 44_100, channelCount: 2, expectedFrameCount: 100)
        let samples = [Float](repeating: 0.25, count: 100)
        try writer.write(left: samples, right: samples, frameCount: 100)
        try writer.finish()
        let bytes = try Data(contentsOf: scratch.url.appendingPathComponent("known.wav"))
        XCTAssertEqual(Array(bytes[12..<16]), Array("fmt ".utf8))
        XCTAssertEqual(bytes[20], 1, "WAVE_FORMAT_PCM")
        XCTAssertTrue(AudioFileWriter.fitsInRIFF(frames: 1_000_000_000, sampleFormat: .int16, channelCount: 1))
        XCTAssertFalse(AudioFileWriter.fitsInRIFF(frames: 1_000_000_000, sampleFormat: .int24, channelCount: 2))
        XCTAssertFalse(AudioFileWriter.fitsInRIFF(frames: nil, sampleFormat: .int16, channelCount: 2))
        XCTAssertFalse(AudioFileWriter.fitsInRIFF(frames: .max, sampleFormat: .float32, channelCount: 2))
    }

    func testOggMessageSaysItTakesNoSampleFormat() {
        let error = AudioFileError(path: "x.ogg", problem: .unsupportedSampleFormat(.ogg, .int16))
        XCTAssertFalse("\(error)".contains("supports: )"), "\(error)")
        XCTAssertTrue("\(error)".contains("takes no sample format"), "\(error)")
    }

    /// Over 4 GiB of data (96 kHz, 32-bit float, stereo, 5,600 s of silence) is written as RF64, whose
    /// length libsndfile and sox read back whole (a plain WAV header would wrap at 4 GiB).
    func testWAVOver4GiBIsRF64WithItsFullLength() throws {
        var fileSystem = statvfs()
        XCTAssertEqual(statvfs(scratch.url.path, &fileSystem), 0)
        let available = Double(fileSystem.f_bavail) * Double(fileSystem.f_frsize)
        guard available >= 5 * 1_073_741_824 else {
            throw XCTSkip("needs 5 GiB free in \(scratch.url.path), has \(Int(available / 1_048_576)) MiB")
        }
        let frames = 96_000 * 5_600  // 4.3e9 bytes of 32-bit stereo
        let block = 65_536
        let silence = [Float](repeating: 0, count: block * 2)
        let target = scratch.path("long.wav")
        let writer = try AudioFileWriter(path: target, sampleFormat: .float32, sampleRate: 96_000, channelCount: 2)
        var written = 0
        while written < frames {
            let count = min(block, frames - written)
            try writer.write(interleaved: silence, frameCount: count)
            written += count
        }
        try writer.finish()
        let size = try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int ?? 0
        XCTAssertGreaterThan(size, 1 << 32)
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: target)).read(upToCount: 4) ?? Data()
        XCTAssertEqual(Array(header), Array("RF64".utf8))
        XCTAssertEqual(try AudioFileReader(path: target).frameCount, Int64(frames))

        let samples = try runCommand(URL(fileURLWithPath: "/usr/bin/soxi"), ["-s", target]).standardOutput
        XCTAssertEqual(samples.trimmingCharacters(in: .whitespacesAndNewlines), "\(frames)", "sox reads every frame")
    }
}
