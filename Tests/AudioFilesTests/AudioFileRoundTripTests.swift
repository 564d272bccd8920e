import AudioFiles
import Foundation
import TestSupport
import XCTest

final class AudioFileRoundTripTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "af") }
    override func tearDown() { scratch?.remove() }

    /// A 0.8-amplitude sine (left 440 Hz, right 660 Hz), `frames` long.
    func sine(frames: Int, sampleRate: Int) -> (left: [Float], right: [Float]) {
        let left = (0..<frames).map { Float(0.8 * sin(2 * Double.pi * 440 * Double($0) / Double(sampleRate))) }
        let right = (0..<frames).map { Float(0.8 * sin(2 * Double.pi * 660 * Double($0) / Double(sampleRate))) }
        return (left, right)
    }

    func writeStereo(_ path: String, format: AudioFileFormat? = nil, sampleFormat: AudioSampleFormat?,
                     sampleRate: Int, left: [Float], right: [Float]) throws {
        // A small scratch buffer, so the interleaving runs over several chunks.
        let writer = try AudioFileWriter(path: path, format: format, sampleFormat: sampleFormat,
                                         sampleRate: sampleRate, channelCount: 2, maximumFramesPerWrite: 1000)
        try writer.write(left: left, right: right, frameCount: left.count)
        XCTAssertEqual(writer.framesWritten, Int64(left.count))
        try writer.finish()
    }

    func assertRoundTrip(_ name: String, sampleFormat: AudioSampleFormat?, tolerance: Float,
                         sampleRate: Int = 48_000, file: StaticString = #filePath, line: UInt = #line) throws {
        let (left, right) = sine(frames: 10_000, sampleRate: sampleRate)
        try writeStereo(scratch.path(name), sampleFormat: sampleFormat, sampleRate: sampleRate, left: left, right: right)
        let reader = try AudioFileReader(path: scratch.path(name))
        XCTAssertEqual(reader.sampleRate, sampleRate, file: file, line: line)
        XCTAssertEqual(reader.channelCount, 2, file: file, line: line)
        XCTAssertEqual(reader.frameCount, 10_000, file: file, line: line)
        XCTAssertEqual(reader.format, AudioFileFormat(pathExtension: (name as NSString).pathExtension), file: file, line: line)
        let channels = try reader.readAll()
        XCTAssertEqual(channels.map(\.count), [10_000, 10_000], file: file, line: line)
        let error = zip(channels[0] + channels[1], left + right).map { abs($0 - $1) }.max() ?? .infinity
        XCTAssertLessThanOrEqual(error, tolerance, "\(name): max error \(error)", file: file, line: line)
    }

    func testWAVRoundTrips() throws {
        try assertRoundTrip("a.wav", sampleFormat: .int16, tolerance: 1.0 / 32_768)
        try assertRoundTrip("b.wav", sampleFormat: .int24, tolerance: 1.0 / 8_388_608)
        try assertRoundTrip("c.wav", sampleFormat: .int32, tolerance: 1e-7)
        try assertRoundTrip("d.wav", sampleFormat: .float32, tolerance: 0)
    }

    func testAIFFRoundTrips() throws {
        try assertRoundTrip("a.aiff", sampleFormat: .int16, tolerance: 1.0 / 32_768, sampleRate: 44_100)
        try assertRoundTrip("b.aif", sampleFormat: .int24, tolerance: 1.0 / 8_388_608, sampleRate: 22_050)
        try assertRoundTrip("c.aiff", sampleFormat: .int32, tolerance: 1e-7)
        try assertRoundTrip("d.aiff", sampleFormat: .float32, tolerance: 0, sampleRate: 96_000)
    }

    func testFLACRoundTrips() throws {
        try assertRoundTrip("a.flac", sampleFormat: .int16, tolerance: 1.0 / 32_768)
        try assertRoundTrip("b.flac", sampleFormat: .int24, tolerance: 1.0 / 8_388_608, sampleRate: 192_000)
    }

    func testOggVorbisRoundTripsWithinLossyTolerance() throws {
        try assertRoundTrip("a.ogg", sampleFormat: nil, tolerance: 0.05, sampleRate: 44_100)
    }

    func testMonoFileAndBlockReads() throws {
        let (left, _) = sine(frames: 3000, sampleRate: 8000)
        let writer = try AudioFileWriter(path: scratch.path("mono.wav"), sampleFormat: .float32, sampleRate: 8000, channelCount: 1)
        XCTAssertThrowsError(try writer.write(left: left, right: left, frameCount: 3000)) { error in
            XCTAssertEqual((error as? AudioFileError)?.problem, .channelCountMismatch(expected: 1, given: 2))
        }
        try writer.write(left: left, right: nil, frameCount: 3000)
        try writer.finish()
        let reader = try AudioFileReader(path: scratch.path("mono.wav"))
        XCTAssertEqual(try reader.read(maxFrames: 1000).first, Array(left[0..<1000]))
        try reader.seek(toFrame: 2500)
        XCTAssertEqual(try reader.read(maxFrames: 1000).first, Array(left[2500...]))
        XCTAssertEqual(try reader.read(maxFrames: 1000).first, [])
    }

    func testClippingInsteadOfWrapAround() throws {
        try writeStereo(scratch.path("loud.wav"), sampleFormat: .int16, sampleRate: 44_100, left: [1.5, -2], right: [0.5, 3])
        let channels = try AudioFileReader(path: scratch.path("loud.wav")).readAll()
        XCTAssertEqual(channels[0][0], 1, accuracy: 1e-4)
        XCTAssertEqual(channels[0][1], -1, accuracy: 1e-4)
        XCTAssertEqual(channels[1][1], 1, accuracy: 1e-4)
    }

    /// The format's own rate rule (what `-o x.opus` at 44.1 kHz renders at): a rate the format takes is
    /// kept, Opus and MP3 move to 48 kHz, and libsndfile writes the file at the rate chosen (not at 44.1 kHz).
    func testAFormatSaysTheRateItCanBeWrittenAt() throws {
        XCTAssertEqual(AudioFileFormat.wav.sampleRate(forRequested: 44_100), 44_100)
        XCTAssertEqual(AudioFileFormat.opus.sampleRate(forRequested: 24_000), 24_000)
        XCTAssertEqual(AudioFileFormat.opus.sampleRate(forRequested: 44_100), 48_000)
        XCTAssertEqual(AudioFileFormat.mp3.sampleRate(forRequested: 96_000), 48_000)
        let rate = AudioFileFormat.opus.sampleRate(forRequested: 44_100)
        let tone = sine(frames: rate / 10, sampleRate: rate)
        try writeStereo(scratch.path("rule.opus"), sampleFormat: nil, sampleRate: rate, left: tone.left, right: tone.right)
        XCTAssertThrowsError(try writeStereo(scratch.path("44100.opus"), sampleFormat: nil, sampleRate: 44_100,
                                             left: tone.left, right: tone.right))
    }
}
