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

    /// Every render of a period is timed on the render thread, by the clock and by its CPU time: two renders made to
    /// work three periods long and one made to sleep as long are the three longer than their period, two of them by
    /// their work alone.
    func testRendersLongerThanTheirPeriodAreCountedAndTimed() throws {
        let engine = TestSignal.makeEngine(format: format)
        let period = 256.0 / 44_100
        let slow = SlowPeriodsSource(engine: engine, working: [10, 20], sleeping: [30], delay: 3 * period)
        let output = NullOutput(sampleRate: 44_100, channelCount: 2, periodFrames: 256)
        try output.start(engine: engine, source: slow, frameCount: 256 * 50)
        XCTAssertEqual(output.waitUntilEnded(), .completed)
        let times = output.renderTimes
        print(String(format: "50 periods of 5.80 ms, 2 made to work and 1 to sleep 17.4 ms: %d longer than their period, %d by their "
                     + "work alone; longest %.2f ms, longest work %.2f ms, mean %.3f ms", times.longerThanPeriod,
                     times.workLongerThanPeriod, times.longest * 1e3, times.longestWork * 1e3, times.mean * 1e3))
        XCTAssertEqual(times.periods, 50)
        XCTAssertGreaterThanOrEqual(times.longerThanPeriod, 3, "the three slow renders")
        XCTAssertEqual(times.workLongerThanPeriod, 2, "the two that worked; the sleeping one and the engine's own renders did not")
        XCTAssertGreaterThanOrEqual(times.longest, 3 * period)
        XCTAssertGreaterThanOrEqual(times.longestWork, 3 * period)
        XCTAssertGreaterThanOrEqual(times.mean, 3 * (3 * period) / 50, "the slow renders are in the mean")
        XCTAssertLessThan(times.mean, times.longest)
    }
}

/// Renders the engine, first working `delay` seconds of CPU time (a busy loop on the thread's CPU clock) on the
/// `working` periods and sleeping `delay` seconds on the `sleeping` ones (periods counted from 1).
private final class SlowPeriodsSource: RealtimeRenderSource, @unchecked Sendable {
    private let engine: AudioEngine
    private let working: Set<Int>, sleeping: Set<Int>
    private let delay: Double
    private var period = 0

    init(engine: AudioEngine, working: Set<Int>, sleeping: Set<Int>, delay: Double) {
        self.engine = engine
        self.working = working
        self.sleeping = sleeping
        self.delay = delay
    }

    func renderBlock(frameCount: Int) -> AudioBuffer? {
        period += 1
        if working.contains(period) {
            let until = Self.cpuTime() + delay
            while Self.cpuTime() < until {}
        } else if sleeping.contains(period) {
            Thread.sleep(forTimeInterval: delay)
        }
        return engine.renderBlock(frameCount: frameCount)
    }

    private static func cpuTime() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
