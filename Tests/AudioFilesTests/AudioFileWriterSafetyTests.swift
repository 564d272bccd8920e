import AudioFiles
import Foundation
import TestSupport
import XCTest

/// Refusals, cancellation, and the guarantee that nothing half-written appears as the destination.
final class AudioFileWriterSafetyTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "afs") }
    override func tearDown() { scratch?.remove() }

    func problem(_ body: () throws -> Void) -> AudioFileError.Problem? {
        do {
            try body()
            return nil
        } catch {
            return (error as? AudioFileError)?.problem
        }
    }

    func testUnsupportedCombinationsAreRefused() throws {
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: scratch.path("x.flac"), sampleFormat: .float32, sampleRate: 44_100, channelCount: 2) },
                       .unsupportedSampleFormat(.flac, .float32))
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: scratch.path("x.flac"), sampleFormat: .int32, sampleRate: 44_100, channelCount: 2) },
                       .unsupportedSampleFormat(.flac, .int32))
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: scratch.path("x.ogg"), sampleFormat: .int16, sampleRate: 44_100, channelCount: 2) },
                       .unsupportedSampleFormat(.ogg, .int16))
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: scratch.path("x.wma"), sampleRate: 44_100, channelCount: 2) },
                       .unknownExtension("wma"))
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: scratch.path("x.mp3"), sampleFormat: .int16, sampleRate: 44_100, channelCount: 2) },
                       .unsupportedSampleFormat(.mp3, .int16))
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: "-", format: .flac, sampleRate: 44_100, channelCount: 2) },
                       .streamMustBeWAV(.flac))
        guard case .unsupportedSettings = problem({ _ = try AudioFileWriter(path: scratch.path("x.wav"), sampleRate: 0, channelCount: 2) }) else {
            return XCTFail("sample rate 0 accepted")
        }
        XCTAssertEqual(try scratch.contents(), [])
    }

    func testExplicitFormatOverridesTheExtension() throws {
        let writer = try AudioFileWriter(path: scratch.path("render.out"), format: .flac, sampleRate: 44_100, channelCount: 1)
        try writer.write(left: [0.25, -0.25], right: nil, frameCount: 2)
        try writer.finish()
        XCTAssertEqual(try AudioFileReader(path: scratch.path("render.out")).format, .flac)
    }

    func testUnwritableDestination() {
        let missing = scratch.path("no/such/dir/out.wav")
        XCTAssertThrowsError(try AudioFileWriter(path: missing, sampleRate: 44_100, channelCount: 2)) { error in
            XCTAssertEqual(error as? AudioFileError, AudioFileError(path: missing, problem: .noDirectory(scratch.path("no/such/dir"))))
            XCTAssertTrue("\(error)".contains(missing))
        }
    }

    func testReadOnlyDirectory() throws {
        guard getuid() != 0 else { throw XCTSkip("root ignores directory permissions") }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: scratch.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.url.path) }
        XCTAssertEqual(problem { _ = try AudioFileWriter(path: scratch.path("out.wav"), sampleRate: 44_100, channelCount: 2) },
                       .cannotCreate("Permission denied"))
    }

    func testCancelLeavesNoFileAndKeepsTheOldOne() throws {
        try Data("previous".utf8).write(to: scratch.url.appendingPathComponent("out.wav"))
        let writer = try AudioFileWriter(path: scratch.path("out.wav"), sampleRate: 44_100, channelCount: 1)
        try writer.write(left: [Float](repeating: 0.1, count: 1000), right: nil, frameCount: 1000)
        XCTAssertEqual(try scratch.contents().count, 2, "the temporary file sits beside the destination while writing")
        writer.cancel()
        XCTAssertEqual(try scratch.contents(), ["out.wav"])
        XCTAssertEqual(try String(contentsOfFile: scratch.path("out.wav"), encoding: .utf8), "previous")
        XCTAssertEqual(problem { try writer.write(left: [0], right: nil, frameCount: 1) }, .closed)
        XCTAssertEqual(problem { try writer.finish() }, .closed)
    }

    func testDroppingAnUnfinishedWriterLeavesNoFile() throws {
        do {
            let writer = try AudioFileWriter(path: scratch.path("dropped.flac"), sampleRate: 44_100, channelCount: 1)
            try writer.write(left: [0.5], right: nil, frameCount: 1)
        }
        XCTAssertEqual(try scratch.contents(), [])
    }

    func testFinishReplacesTheDestination() throws {
        try Data("previous".utf8).write(to: scratch.url.appendingPathComponent("out.aiff"))
        let writer = try AudioFileWriter(path: scratch.path("out.aiff"), sampleRate: 44_100, channelCount: 1)
        try writer.write(left: [Float](repeating: 0.1, count: 100), right: nil, frameCount: 100)
        try writer.finish()
        XCTAssertEqual(try scratch.contents(), ["out.aiff"])
        XCTAssertEqual(try AudioFileReader(path: scratch.path("out.aiff")).frameCount, 100)
    }

    func testReadingAMissingOrBogusFileThrows() throws {
        try Data("not audio at all".utf8).write(to: scratch.url.appendingPathComponent("bogus.wav"))
        for name in ["absent.wav", "bogus.wav"] {
            guard case .cannotOpen = problem({ _ = try AudioFileReader(path: scratch.path(name)) }) else {
                return XCTFail("\(name) opened")
            }
        }
    }

    /// With standard output on a pipe, the stream is a WAV header with unknown (0xFFFFFFFF) sizes
    /// followed by the samples; libsndfile reads it back.
    func testStreamingToAPipeWritesAWAVHeader() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let savedStandardOutput = dup(STDOUT_FILENO)
        fflush(nil)
        dup2(ends[1], STDOUT_FILENO)
        let samples: [Float] = (0..<2000).map { Float($0 % 200) / 200 - 0.5 }
        let outcome = Result { () throws -> Void in
            let writer = try AudioFileWriter(path: "-", sampleFormat: .int16, sampleRate: 32_000, channelCount: 2)
            try writer.write(interleaved: samples, frameCount: 1000)
            try writer.finish()
        }
        dup2(savedStandardOutput, STDOUT_FILENO)
        close(savedStandardOutput)
        close(ends[1])
        try outcome.get()
        let stream = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true).readDataToEndOfFile()
        XCTAssertEqual(stream.count, 44 + 4000)
        XCTAssertEqual(Array(stream.prefix(12)), Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVE".utf8))
        XCTAssertEqual(Array(stream[36..<44]), Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF])

        try stream.write(to: scratch.url.appendingPathComponent("streamed.wav"))
        let reader = try AudioFileReader(path: scratch.path("streamed.wav"))
        XCTAssertEqual([reader.sampleRate, reader.channelCount], [32_000, 2])
        let channels = try reader.readAll()
        XCTAssertEqual(channels[0].count, 1000)
        XCTAssertEqual(channels[1][999], samples[1999], accuracy: 1.0 / 32_768)
    }

    /// With standard output redirected to a regular file, libsndfile writes an ordinary WAV file.
    func testStreamingToARegularFileWritesACompleteWAV() throws {
        let output = open(scratch.path("redirected.wav"), O_RDWR | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(output, 0)
        let savedStandardOutput = dup(STDOUT_FILENO)
        fflush(nil)
        dup2(output, STDOUT_FILENO)
        let outcome = Result { () throws -> Void in
            let writer = try AudioFileWriter(path: "-", sampleFormat: .float32, sampleRate: 48_000, channelCount: 1)
            try writer.write(left: [0.5, -0.5, 0.25], right: nil, frameCount: 3)
            try writer.finish()
        }
        dup2(savedStandardOutput, STDOUT_FILENO)
        close(savedStandardOutput)
        close(output)
        try outcome.get()
        let reader = try AudioFileReader(path: scratch.path("redirected.wav"))
        XCTAssertEqual(reader.frameCount, 3)
        XCTAssertEqual(try reader.readAll(), [[0.5, -0.5, 0.25]])
    }
}
