import AudioFiles
import AudioGraph
import Foundation
import TestSupport
import XCTest

final class RecorderTapTests: XCTestCase {
    private var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "RecorderTapTests") }
    override func tearDown() { scratch?.remove() }

    /// A started engine: 441 Hz tone → main mixer, with `recorder` on the mixer's output.
    private func recordingEngine(_ recorder: RecorderTap) throws -> AudioEngine {
        let engine = AudioEngine()
        let tone = ToneGeneratorNode(frequency: 441, amplitude: 0.6)
        engine.attach(tone)
        engine.connect(tone, to: engine.mainMixerNode)
        engine.mainMixerNode.setPan(-0.5, forInput: 0)
        engine.mainMixerNode.installTap(recorder, at: .output(bus: 0))
        try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: 512)
        try engine.start()
        return engine
    }

    func testTheFileHoldsEveryFrameRenderedWhileRecording() throws {
        let path = scratch.path("take.wav")
        let recorder = RecorderTap(path: path, sampleFormat: .float32, bufferFrames: 1 << 18)
        let engine = try recordingEngine(recorder)
        _ = engine.renderBlock(frameCount: 512) // before start: not recorded
        try recorder.start()
        var rendered: [[Float]] = [[], []]
        for cycle in 0..<200 {
            let block = engine.renderBlock(frameCount: cycle % 2 == 0 ? 512 : 300)!
            for channel in 0..<2 { rendered[channel] += block[channel] }
        }
        let summary = try recorder.stop()
        _ = engine.renderBlock(frameCount: 512) // after stop: not recorded

        XCTAssertEqual(summary.framesWritten, Int64(rendered[0].count))
        XCTAssertEqual(summary.droppedFrames, 0)
        let reader = try AudioFileReader(path: path)
        XCTAssertEqual(reader.sampleRate, 44_100)
        XCTAssertEqual(reader.channelCount, 2)
        let recorded = try reader.readAll()
        XCTAssertEqual(recorded[0].count, 100 * 512 + 100 * 300)
        XCTAssertEqual(recorded, rendered)
        XCTAssertNotEqual(recorded[0], recorded[1], "panned: the channels differ")
    }

    func testAWriterThatFallsBehindDropsWholeCyclesAndCountsThem() throws {
        let path = scratch.path("drops.flac")
        let recorder = RecorderTap(path: path, bufferFrames: 512)
        let engine = try recordingEngine(recorder)
        try recorder.start()
        var rendered = 0
        for _ in 0..<4000 { rendered += engine.renderBlock(frameCount: 512)!.frameLength }
        let summary = try recorder.stop()

        XCTAssertGreaterThan(summary.droppedFrames, 0, "a 512-frame ring cannot absorb 4000 cycles rendered flat out")
        XCTAssertEqual(summary.droppedFrames % 512, 0, "whole cycles are dropped")
        XCTAssertEqual(Int(summary.framesWritten) + summary.droppedFrames, rendered)
        XCTAssertEqual(try AudioFileReader(path: path).frameCount, summary.framesWritten)
    }

    func testStartAndStopOutOfOrderAreRefused() throws {
        let path = scratch.path("never.wav")
        let recorder = RecorderTap(path: path)
        XCTAssertThrowsError(try recorder.start()) { error in
            XCTAssertEqual(error as? RecorderError, .notPrepared(path: path))
        }
        XCTAssertThrowsError(try recorder.stop()) { error in
            XCTAssertEqual(error as? RecorderError, .notRecording(path: path))
        }
        _ = try recordingEngine(recorder)
        try recorder.start()
        XCTAssertThrowsError(try recorder.start()) { error in
            XCTAssertEqual(error as? RecorderError, .alreadyRecording(path: path))
        }
        XCTAssertEqual(try recorder.stop().framesWritten, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testAnUnwritableDestinationFailsAtStartNamingTheFile() throws {
        let path = scratch.path("missing/dir/take.wav")
        let recorder = RecorderTap(path: path)
        _ = try recordingEngine(recorder)
        XCTAssertThrowsError(try recorder.start()) { error in
            XCTAssertEqual((error as? AudioFileError)?.path, path)
        }
        XCTAssertFalse(recorder.isRecording)
    }

    /// A recording cancelled (a session that could not start) leaves the file that was at its path as it was,
    /// and no temporary file; the recorder can start again.
    func testACancelledRecordingLeavesTheFileThatWasThere() throws {
        let path = scratch.path("keep.wav")
        let kept = Data("the user's own file".utf8)
        try kept.write(to: URL(fileURLWithPath: path))
        let recorder = RecorderTap(path: path)
        let engine = try recordingEngine(recorder)
        try recorder.start()
        for _ in 0..<20 { _ = engine.renderBlock(frameCount: 512) }
        recorder.cancel()
        XCTAssertFalse(recorder.isRecording)
        XCTAssertEqual(FileManager.default.contents(atPath: path), kept)
        XCTAssertEqual(try scratch.contents(), ["keep.wav"])
        recorder.cancel()  // not recording: nothing happens
        try recorder.start()
        _ = engine.renderBlock(frameCount: 512)
        XCTAssertEqual(try recorder.stop().framesWritten, 512)
        XCTAssertEqual(try AudioFileReader(path: path).frameCount, 512)
    }
}
