import AudioGraph
import Foundation
import XCTest

final class TapTests: XCTestCase {
    private let mono = AudioFormat(sampleRate: 44_100, channelCount: 1)

    /// An engine rendering a 440 Hz tone through the main mixer, not yet started.
    private func toneEngine(maximumFrameCount: Int = 512) throws -> AudioEngine {
        let tone = ToneGeneratorNode(name: "tone", frequency: 440, amplitude: 0.7)
        let engine = try makeOfflineEngine(maximumFrameCount: maximumFrameCount, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        return engine
    }

    private func renderSecond(_ engine: AudioEngine) throws -> AudioBuffer {
        try engine.start()
        let buffer = AudioBuffer(format: engine.outputFormat, frameCapacity: 44_100)
        try engine.renderOffline(frames: 44_100, into: buffer)
        return buffer
    }

    func testAModifyTapThatHalvesAmplitudeHalvesRMSExactly() throws {
        let plain = try renderSecond(try toneEngine())
        let engine = try toneEngine()
        engine.mainMixerNode.installTap(GainTap(gain: 0.5), at: .output(bus: 0))
        let halved = try renderSecond(engine)

        XCTAssertGreaterThan(rms(plain, channel: 0), 0.3)
        for channel in 0..<2 {
            XCTAssertEqual(rms(halved, channel: channel), rms(plain, channel: channel) / 2)
            XCTAssertEqual(Array(halved[channel]), plain[channel].map { $0 / 2 })
        }
    }

    func testTapsOnAnInputAndAnOutputSeeTheFormatThereAndRunInOrder() throws {
        let engine = try toneEngine()
        let tone = engine.attachedNodes.first { $0.name == "tone" }!
        let beforeMixer = GainTap(gain: 0.5), afterMixer = GainTap(gain: 0.5), afterTone = GainTap(gain: 2)
        engine.mainMixerNode.installTap(beforeMixer, at: .input(bus: 0))
        engine.mainMixerNode.installTap(afterMixer, at: .output(bus: 0))
        tone.installTap(afterTone, at: .output(bus: 0))
        let tapped = try renderSecond(engine)

        XCTAssertEqual(beforeMixer.preparedFormat, mono)
        XCTAssertEqual(afterTone.preparedFormat, mono)
        XCTAssertEqual(afterMixer.preparedFormat, .standard)
        XCTAssertEqual(afterMixer.preparedMaximumFrameCount, 512)
        let plain = try renderSecond(try toneEngine())
        XCTAssertEqual(Array(tapped[0]), plain[0].map { $0 * 2 * 0.5 * 0.5 })
    }

    func testTheTapLifecycleFollowsTheEngine() throws {
        let engine = try toneEngine()
        let tap = GainTap(gain: 1)
        engine.mainMixerNode.installTap(tap, at: .output(bus: 0))
        XCTAssertEqual(tap.prepareCalls, 0)
        try engine.start()
        XCTAssertEqual(tap.prepareCalls, 1)
        engine.stop()
        XCTAssertEqual(tap.unprepareCalls, 1)
        engine.mainMixerNode.removeTap(tap)
        try engine.start()
        engine.stop()
        XCTAssertEqual(tap.prepareCalls, 1, "a removed tap is not prepared again")
    }

    func testAnObserveTapReceivesEveryFrameOfAnOfflineRender() throws {
        let engine = try toneEngine()
        let observer = ObserveTap(capacity: 8192)
        engine.mainMixerNode.installTap(observer, at: .output(bus: 0))
        try engine.start()

        let totalFrames = 44_100 * 5
        let consumer = Consumer(tap: observer, channelCount: 2, expectedFrames: totalFrames)
        consumer.start()
        var rendered: [Float] = []
        rendered.reserveCapacity(totalFrames)
        while rendered.count < totalFrames {
            // The test (not the render path) paces itself so the consumer can keep up.
            while observer.availableFrames > observer.capacity / 2 { usleep(100) }
            let block = try XCTUnwrap(engine.renderBlock(frameCount: min(512, totalFrames - rendered.count)))
            rendered.append(contentsOf: block[0])
        }
        consumer.waitUntilFinished()

        XCTAssertEqual(observer.droppedFrames, 0)
        XCTAssertEqual(observer.deliveredFrames, totalFrames)
        XCTAssertEqual(consumer.channel0.count, totalFrames)
        XCTAssertEqual(consumer.channel0, rendered)
    }

    func testASlowConsumerLosesWholeCyclesCountedAsDroppedWithoutStallingTheRender() throws {
        let engine = try toneEngine()
        let observer = ObserveTap(capacity: 2048)
        engine.mainMixerNode.installTap(observer, at: .output(bus: 0))
        try engine.start()

        // Nobody reads during the first 100 cycles: four fit in the ring, the rest are dropped.
        for _ in 0..<100 { XCTAssertNotNil(engine.renderBlock(frameCount: 512)) }
        XCTAssertEqual(observer.deliveredFrames, 2048)
        XCTAssertEqual(observer.droppedFrames, 96 * 512)

        // A consumer that reads 256 frames per millisecond cannot keep up with a free-running render.
        let consumer = Consumer(tap: observer, channelCount: 2, expectedFrames: nil, readFrames: 256, pause: 0.001)
        consumer.start()
        let cycles = 2000
        for _ in 0..<cycles { XCTAssertNotNil(engine.renderBlock(frameCount: 512)) }
        consumer.stop()

        XCTAssertEqual(engine.sampleTime, Int64((100 + cycles) * 512))
        XCTAssertEqual(observer.deliveredFrames + observer.droppedFrames, (100 + cycles) * 512)
        XCTAssertGreaterThan(observer.droppedFrames, 96 * 512)
        XCTAssertEqual(consumer.channel0.count + observer.availableFrames, observer.deliveredFrames)
    }

    func testAnObserveTapSmallerThanOneCycleRefusesToPrepare() throws {
        let engine = try toneEngine(maximumFrameCount: 1024)
        engine.mainMixerNode.installTap(ObserveTap(capacity: 512), at: .output(bus: 0))
        XCTAssertThrowsError(try engine.start()) {
            XCTAssertEqual($0 as? AudioEngineError, .preparationFailed(
                node: "tap on output of 'main mixer'",
                reason: "the observe tap holds 512 frames, less than one render cycle (1024)"))
        }
    }
}

/// A thread that reads an observe tap and keeps channel 0 of what it read.
private final class Consumer: @unchecked Sendable {
    private let tap: ObserveTap
    private let buffer: AudioBuffer
    private let expectedFrames: Int?
    private let pause: TimeInterval
    private let finished = DispatchSemaphore(value: 0)
    private let stopRequested = NSLock()
    private var shouldStop = false
    private(set) var channel0: [Float] = []

    init(tap: ObserveTap, channelCount: Int, expectedFrames: Int?, readFrames: Int = 4096, pause: TimeInterval = 0) {
        self.tap = tap
        self.expectedFrames = expectedFrames
        self.pause = pause
        buffer = AudioBuffer(format: AudioFormat(sampleRate: 44_100, channelCount: channelCount), frameCapacity: readFrames)
    }

    func start() {
        Thread { [self] in
            while !isDone {
                if tap.read(into: buffer) > 0 { channel0.append(contentsOf: buffer[0]) }
                if pause > 0 { Thread.sleep(forTimeInterval: pause) } else { usleep(50) }
            }
            finished.signal()
        }.start()
    }

    private var isDone: Bool {
        if let expectedFrames, channel0.count >= expectedFrames { return true }
        return stopRequested.withLock { shouldStop }
    }

    func stop() {
        stopRequested.withLock { shouldStop = true }
        finished.wait()
    }

    func waitUntilFinished() { finished.wait() }
}
