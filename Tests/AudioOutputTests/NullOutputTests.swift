import ALSA
import AudioGraph
import Foundation
import XCTest

/// NullOutput: the real render thread and loop, paced by the monotonic clock.
final class NullOutputTests: XCTestCase {
    private let format = AudioFormat(sampleRate: 44_100, channelCount: 2)

    func testOneSecondOfTonePlaysInAboutOneSecondAndRendersExactlyThoseFrames() throws {
        let engine = TestSignal.makeEngine(format: format)
        let output = NullOutput(sampleRate: 44_100, channelCount: 2, periodFrames: 256)
        let started = DispatchTime.now()
        try output.start(engine: engine, frameCount: 44_100)
        let end = output.waitUntilEnded()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9

        XCTAssertEqual(end, .completed)
        XCTAssertEqual(output.sampleTime, 44_100)
        XCTAssertEqual(engine.sampleTime, 44_100, "the engine rendered more or fewer frames than played")
        XCTAssertEqual(output.xrunCount, 0)
        // Paced by absolute deadlines: never early; late only by scheduling on a loaded machine
        // (a pacing bug that plays at half speed would take 2 s).
        XCTAssertGreaterThanOrEqual(seconds, 0.99)
        XCTAssertLessThan(seconds, 1.9)
        XCTAssertNotNil(output.scheduling)
    }

    func testPauseStopsTimeAndStopEndsPlayback() throws {
        let engine = TestSignal.makeEngine(format: format)
        let output = NullOutput(sampleRate: 44_100, channelCount: 2, periodFrames: 441)
        try output.start(engine: engine)
        Thread.sleep(forTimeInterval: 0.1)
        output.pause()
        Thread.sleep(forTimeInterval: 0.05)  // let the period in progress finish
        let pausedAt = output.sampleTime
        Thread.sleep(forTimeInterval: 0.15)
        XCTAssertTrue(output.isPaused)
        XCTAssertEqual(output.sampleTime, pausedAt, "sample time moved while paused")
        XCTAssertGreaterThan(pausedAt, 0)
        output.resume()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertGreaterThan(output.sampleTime, pausedAt)
        XCTAssertEqual(output.stop(), .stopped)
        XCTAssertEqual(engine.sampleTime, output.sampleTime)
    }

    func testRunningEngineOfAnotherFormatIsRefused() throws {
        let engine = TestSignal.makeEngine(format: AudioFormat(sampleRate: 48_000, channelCount: 2))
        try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 48_000, channelCount: 2), maximumFrameCount: 512)
        try engine.start()
        let output = NullOutput(sampleRate: 44_100, channelCount: 2, periodFrames: 256)
        XCTAssertThrowsError(try output.start(engine: engine)) { error in
            XCTAssertEqual(error as? AudioOutputError,
                           .formatMismatch(engine: engine.outputFormat, outputSampleRate: 44_100, outputChannelCount: 2))
        }
    }

    func testRenderThreadDoesNotAllocateInSteadyState() throws {
        let engine = TestSignal.makeEngine(format: format)
        let probe = RenderThreadAllocationProbe(firstCycle: 10, cycleCount: 50)
        engine.mainMixerNode.installTap(probe, at: .output(bus: 0))
        let output = NullOutput(sampleRate: 44_100, channelCount: 2, periodFrames: 128)
        try output.start(engine: engine, frameCount: 128 * 70)
        XCTAssertEqual(output.waitUntilEnded(), .completed)
        XCTAssertEqual(probe.allocations, 0, "allocations on the render thread over 50 periods")
    }
}
