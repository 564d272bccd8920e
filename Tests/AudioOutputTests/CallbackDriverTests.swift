import AudioGraph
import Foundation
import XCTest

/// `RealtimeOutput` on a `CallbackAudioDriver`: the driver's own thread asks for each cycle (as JACK's
/// process callback does); the output ends, stops the driver and reports how.
final class CallbackDriverTests: XCTestCase {
    private let format = AudioFormat(sampleRate: 44_100, channelCount: 2)

    func testTheDriversCyclesGetTheEngineAudioUntilTheFrameCountThenTheOutputStopsTheDriverDraining() throws {
        let engine = TestSignal.makeEngine(format: format)
        let driver = ThreadCallbackDriver(periodFrames: 300)
        let output = RealtimeOutput(driver: driver)
        try output.start(engine: engine, frameCount: 10_000)
        XCTAssertEqual(output.waitUntilEnded(), .completed)
        XCTAssertEqual(driver.stoppedDraining, true)
        XCTAssertEqual(output.sampleTime, 10_000)
        // Every cycle up to the end played the engine's audio (the last one 10_000 % 300 frames), then silence.
        let reference = try TestSignal.renderOffline(format: format, frames: 10_000)
        let left = stride(from: 0, to: reference.count, by: 2).map { reference[$0] }
        XCTAssertGreaterThanOrEqual(driver.played.count, 10_200)
        let firstDifference = zip(driver.played, left).enumerated().first { abs($0.element.0 - $0.element.1) > 1e-6 }
        XCTAssertNil(firstDifference.map { "frame \($0.offset): played \($0.element.0), offline \($0.element.1)" })
        XCTAssertTrue(driver.played.dropFirst(10_000).allSatisfy { $0 == 0 }, "silence after the end")
        XCTAssertNil(output.scheduling, "no render thread of the output's own")
    }

    func testStopEndsTheCyclesAndAFailureEndsPlaybackWithTheDriverError() throws {
        let driver = ThreadCallbackDriver(periodFrames: 128)
        let output = RealtimeOutput(driver: driver)
        try output.start(engine: TestSignal.makeEngine(format: format))
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(output.stop(draining: false), .stopped)
        XCTAssertEqual(driver.stoppedDraining, false)
        XCTAssertGreaterThan(output.sampleTime, 0)

        let failing = ThreadCallbackDriver(periodFrames: 128, failAfterCycles: 5)
        let failingOutput = RealtimeOutput(driver: failing)
        try failingOutput.start(engine: TestSignal.makeEngine(format: format))
        guard case .failed(let error) = failingOutput.waitUntilEnded() else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.kind, .deviceDisappeared)
        XCTAssertEqual(failingOutput.sampleTime, 5 * 128)
    }
}

/// A callback driver whose "device thread" is a plain thread calling the cycle back to back and keeping
/// what it would play (the left channel).
private final class ThreadCallbackDriver: CallbackAudioDriver, @unchecked Sendable {
    let sampleRate = 44_100
    let channelCount = 2
    let periodFrames: Int
    let outputLatencyFrames = 0
    let xrunCount = 0
    private let failAfterCycles: Int?
    private let lock = NSLock()
    private var running = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    private(set) var played: [Float] = []
    private(set) var stoppedDraining: Bool?

    init(periodFrames: Int, failAfterCycles: Int? = nil) {
        self.periodFrames = periodFrames
        self.failAfterCycles = failAfterCycles
    }

    private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

    func start(_ cycle: AudioDriverCycle) throws(AudioDriverError) {
        running = true
        let thread = Thread { [self] in
            var cycles = 0
            while isRunning {
                if let failAfterCycles, cycles == failAfterCycles {
                    cycle.fail(AudioDriverFailure(code: -19))
                    while isRunning { usleep(100) }
                    break
                }
                let block = cycle.render(frameCount: periodFrames)
                let frames = block?.frameLength ?? 0
                played += block.map { Array($0[0]) } ?? []
                played += [Float](repeating: 0, count: periodFrames - frames)
                cycles += 1
                usleep(200)
            }
            finished.signal()
        }
        self.thread = thread
        thread.start()
    }

    func stop(draining: Bool) throws(AudioDriverError) {
        lock.lock()
        running = false
        lock.unlock()
        finished.wait()
        stoppedDraining = draining
    }
}
