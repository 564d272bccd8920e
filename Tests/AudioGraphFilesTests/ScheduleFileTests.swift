import AudioFiles
import AudioGraph
import Foundation
import TestSupport
import XCTest

final class ScheduleFileTests: XCTestCase {
    private var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "ScheduleFileTests") }
    override func tearDown() { scratch?.remove() }

    /// Writes a float WAV whose left channel is `left` and right channel its negative.
    private func writeFile(_ name: String, left: [Float], sampleRate: Int = 44_100) throws -> String {
        let path = scratch.path(name)
        let writer = try AudioFileWriter(path: path, sampleFormat: .float32, sampleRate: sampleRate, channelCount: 2)
        let right = left.map { -$0 }
        try writer.write(left: left, right: right, frameCount: left.count)
        try writer.finish()
        return path
    }

    func testAFilePlaysSampleExactlyFromItsScheduledTimeAndLoops() throws {
        let samples = (1...250).map { Float($0) / 1000 }
        let path = try writeFile("click.wav", left: samples)
        let player = AudioPlayerNode()
        let engine = try AudioEngine.started(playing: player, into: { $0.outputNode })
        try player.scheduleFile(atPath: path, at: 777, loops: 1)
        player.play()
        let output = AudioBuffer(format: .standard, frameCapacity: 2000)
        try engine.renderOffline(frames: 2000, into: output)

        XCTAssertEqual(output[0][0..<777].max(), 0)
        XCTAssertEqual(Array(output[0][777..<1277]), samples + samples)
        XCTAssertEqual(Array(output[1][777..<1277]), (samples + samples).map { -$0 })
        XCTAssertEqual(output[0][1277...].max(), 0)
    }

    func testAFileAtAnotherSampleRateIsRefusedNamingTheFile() throws {
        let path = try writeFile("48k.wav", left: [0.5, 0.5], sampleRate: 48_000)
        let player = AudioPlayerNode()
        XCTAssertThrowsError(try player.scheduleFile(atPath: path)) { error in
            XCTAssertEqual(error as? AudioPlayerError,
                           .sampleRateMismatch(source: path, sampleRate: 48_000, playerSampleRate: 44_100))
        }
        XCTAssertEqual(player.scheduledCount, 0)
    }

    func testAMissingFileIsAnAudioFileErrorNamingIt() {
        let path = scratch.path("nothing.wav")
        XCTAssertThrowsError(try AudioPlayerNode().scheduleFile(atPath: path)) { error in
            XCTAssertEqual((error as? AudioFileError)?.path, path)
        }
    }
}
