import AudioFiles
import AudioGraph
import Foundation
import TestSupport
import XCTest

/// `BlockFileWriter`: gathered writes hold the very bytes block-by-block writes do, with the gain
/// applied in place and the peak measured; silence pads; a cancelled one leaves no file.
final class BlockFileWriterTests: XCTestCase {
    private var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "BlockFileWriterTests") }
    override func tearDown() { scratch?.remove() }

    /// Blocks of 512 frames (a renderer's), the last one cut short, a ramp that tells every frame apart.
    private func blocks(channelCount: Int) -> [(AudioBuffer, Int)] {
        (0..<21).map { index in
            let block = AudioBuffer(format: AudioFormat(sampleRate: 44_100, channelCount: channelCount), frameCapacity: 512)
            block.frameLength = 512
            for channel in 0..<channelCount {
                for i in 0..<512 { block[channel][i] = Float((index * 512 + i) % 1000) / 1000 * (channel == 0 ? 1 : -0.5) }
            }
            return (block, index == 20 ? 300 : 512)
        }
    }

    func testGatheredWritesHoldTheBytesOfBlockByBlockWrites() throws {
        for (format, channels) in [(AudioFileFormat.wav, 2), (.flac, 2), (.aiff, 1)] {
            let direct = scratch.url.appendingPathComponent("direct-\(channels).\(format.rawValue)").path
            let gathered = scratch.url.appendingPathComponent("gathered-\(channels).\(format.rawValue)").path
            let writer = try AudioFileWriter(path: direct, format: format, sampleRate: 44_100, channelCount: channels)
            for (block, count) in blocks(channelCount: channels) {
                for channel in 0..<channels { for i in 0..<count { block[channel][i] *= 0.5 } }
                try writer.write(left: block[0].baseAddress!, right: channels == 2 ? block[1].baseAddress! : nil, frameCount: count)
            }
            try writer.write(left: [Float](repeating: 0, count: 5000), right: channels == 2 ? [Float](repeating: 0, count: 5000) : nil,
                             frameCount: 5000)
            try writer.finish()

            let output = BlockFileWriter(file: try AudioFileWriter(path: gathered, format: format, sampleRate: 44_100, channelCount: channels),
                                         gain: 0.5)
            var firstBlock: AudioBuffer?
            for (block, count) in blocks(channelCount: channels) {
                try output.append(block, frameCount: count)
                firstBlock = firstBlock ?? block
            }
            try output.appendSilence(frameCount: 5000)
            XCTAssertEqual(output.frameCount, 20 * 512 + 300 + 5000)
            try output.finish()

            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: gathered)), try Data(contentsOf: URL(fileURLWithPath: direct)),
                           "\(format) with \(channels) channels")
            XCTAssertEqual(output.peak, 0.4995, accuracy: 1e-6)
            XCTAssertEqual(firstBlock![0][487], Float(487) / 1000 * 0.5, "the gain is applied to the block in place")
        }
    }

    func testMeasuringOnlyAndCancellingLeaveNoFile() throws {
        let measured = BlockFileWriter(file: nil, gain: 2)
        for (block, count) in blocks(channelCount: 2) { try measured.append(block, frameCount: count) }
        XCTAssertEqual(measured.peak, 1.998, accuracy: 1e-6)
        XCTAssertEqual(measured.frameCount, 20 * 512 + 300)

        let path = scratch.path("cancelled.wav")
        let output = BlockFileWriter(file: try AudioFileWriter(path: path, sampleRate: 44_100, channelCount: 2))
        for (block, count) in blocks(channelCount: 2) { try output.append(block, frameCount: count) }
        output.cancel()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty, "no temporary file left")
    }
}
