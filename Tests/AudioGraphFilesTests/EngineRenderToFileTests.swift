import AudioFiles
import AudioGraph
import Foundation
import TestSupport
import XCTest

/// `AudioEngine.render(to:frameCount:untilSilent:)`, `AudioFileWriter.write(_:)` and closure taps.
final class EngineRenderToFileTests: XCTestCase {
    private var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "EngineRenderToFileTests") }
    override func tearDown() { scratch?.remove() }

    /// A player with a 0.25 s tone burst, then silence: rendering runs past `frameCount` only until the
    /// first silent block, and the closure tap saw every frame the file holds.
    func testRenderStopsAtTheFirstSilentBlockAfterTheGivenLengthAndTheTapSeesEveryFrame() throws {
        let engine = AudioEngine()
        let player = AudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode)
        var tapped = 0
        var tapPeak: Float = 0
        engine.mainMixerNode.installTap { buffer, _ in
            tapped += buffer.frameLength
            tapPeak = max(tapPeak, buffer.peak)
        }
        try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: 512)
        let burst = AudioBuffer(format: .standard, frameCapacity: 11_025)
        burst.frameLength = 11_025
        for channel in 0..<2 {
            for i in 0..<11_025 { burst[channel][i] = 0.5 * sin(Float(i) * 2 * .pi * 441 / 44_100) }
        }
        try player.scheduleBuffer(burst)
        try engine.start()
        player.play()

        let path = scratch.path("burst.wav")
        let written = try engine.render(to: AudioFileWriter(path: path, format: engine.outputFormat), frameCount: 4096,
                                        untilSilent: 2)
        // The burst ends at 11025; the block holding it is not silent, the next one is, and ends the render.
        XCTAssertEqual(written, 11_264 + 512)
        XCTAssertEqual(tapped, Int(written))
        XCTAssertEqual(tapPeak, 0.5, accuracy: 0.01)
        let reader = try AudioFileReader(path: path)
        XCTAssertEqual([reader.sampleRate, reader.channelCount], [44_100, 2])
        XCTAssertEqual(reader.frameCount, written)
    }

    /// A tone that never falls silent stops at `frameCount` plus the longest tail.
    func testRenderStopsAfterTheLongestTail() throws {
        let tone = ToneGeneratorNode(frequency: 441, amplitude: 0.5, format: AudioFormat(sampleRate: 48_000, channelCount: 1))
        let engine = try AudioEngine.started(playing: tone, format: AudioFormat(sampleRate: 48_000, channelCount: 2))
        let path = scratch.path("tone.flac")
        let written = try engine.render(to: AudioFileWriter(path: path, format: engine.outputFormat), frameCount: 1000,
                                        untilSilent: 0.5)
        XCTAssertEqual(written, 25_000)
        XCTAssertEqual(try AudioFileReader(path: path).frameCount, 25_000)
    }

    /// A file whose format differs from the engine's is refused and left unwritten.
    func testAFileInAnotherFormatIsRefused() throws {
        let engine = try AudioEngine.started(playing: ToneGeneratorNode())
        let path = scratch.path("mono.wav")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 44_100, channelCount: 1))
        XCTAssertThrowsError(try engine.render(to: writer, frameCount: 100))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// `write(_:)` writes a buffer's frames, more than one write's worth, in order.
    func testWritingABufferKeepsEveryFrame() throws {
        let buffer = AudioBuffer(format: .standard, frameCapacity: 10_000)
        buffer.frameLength = 10_000
        for i in 0..<10_000 {
            buffer[0][i] = Float(i % 100) / 200
            buffer[1][i] = -Float(i % 100) / 200
        }
        let path = scratch.path("buffer.wav")
        let writer = try AudioFileWriter(path: path, format: buffer.format, sampleFormat: .float32)
        try writer.write(buffer)
        try writer.finish()
        let channels = try AudioFileReader(path: path).readAll()
        XCTAssertEqual(channels[0], Array(buffer[0]))
        XCTAssertEqual(channels[1], Array(buffer[1]))
    }
}
