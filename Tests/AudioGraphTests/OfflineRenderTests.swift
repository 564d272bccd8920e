import AudioGraph
import XCTest

final class OfflineRenderTests: XCTestCase {
    func testRenderOfflineFillsTheBufferInSeveralCyclesAndAdvancesSampleTime() throws {
        let tone = ToneGeneratorNode(frequency: 1000, amplitude: 0.5)
        let engine = try makeOfflineEngine(maximumFrameCount: 256, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()

        let buffer = AudioBuffer(format: .standard, frameCapacity: 1000)
        XCTAssertEqual(try engine.renderOffline(frames: 1000, into: buffer), 1000)
        XCTAssertEqual(buffer.frameLength, 1000)
        XCTAssertEqual(engine.sampleTime, 1000)
        // A continuous sine across the 256-frame cycle boundaries: centred mono is −3 dB per side.
        let gain = Float(0.5 * 0.5.squareRoot())
        for i in [0, 255, 256, 511, 512, 999] {
            let expected = gain * Float(sin(2 * Double.pi * 1000 * Double(i) / 44_100))
            XCTAssertEqual(buffer[0][i], expected, accuracy: 1e-5, "frame \(i)")
            XCTAssertEqual(buffer[1][i], expected, accuracy: 1e-5, "frame \(i)")
        }
    }

    func testRenderOfflineStopsAtTheBufferCapacity() throws {
        let tone = ToneGeneratorNode()
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()
        let buffer = AudioBuffer(format: .standard, frameCapacity: 300)
        XCTAssertEqual(try engine.renderOffline(frames: 5000, into: buffer), 300)
        XCTAssertEqual(engine.sampleTime, 300)
    }

    func testRenderOfflineRefusesWrongStateAndWrongBuffer() throws {
        let engine = AudioEngine()
        engine.connect(ToneGeneratorNode(), to: engine.mainMixerNode)
        let buffer = AudioBuffer(format: .standard, frameCapacity: 64)
        XCTAssertThrowsError(try engine.renderOffline(frames: 64, into: buffer)) {
            XCTAssertEqual($0 as? AudioEngineError, .notInManualRenderingMode)
        }

        let tone = ToneGeneratorNode()
        let offline = try makeOfflineEngine(attaching: [tone])
        offline.connect(tone, to: offline.mainMixerNode)
        XCTAssertThrowsError(try offline.renderOffline(frames: 64, into: buffer)) {
            XCTAssertEqual($0 as? AudioEngineError, .engineNotRunning)
        }
        try offline.start()
        let mono = AudioBuffer(format: AudioFormat(sampleRate: 44_100, channelCount: 1), frameCapacity: 64)
        XCTAssertThrowsError(try offline.renderOffline(frames: 64, into: mono)) {
            XCTAssertEqual($0 as? AudioEngineError, .bufferFormatMismatch(buffer: mono.format, expected: .standard))
        }
    }

    func testRenderBlockRefusesOutOfRangeFrameCountsAndAStoppedEngine() throws {
        let tone = ToneGeneratorNode()
        let engine = try makeOfflineEngine(maximumFrameCount: 128, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        XCTAssertNil(engine.renderBlock(frameCount: 64))
        try engine.start()
        XCTAssertNil(engine.renderBlock(frameCount: 129))
        XCTAssertNil(engine.renderBlock(frameCount: 0))
        XCTAssertEqual(engine.renderBlock(frameCount: 128)?.frameLength, 128)
        engine.stop()
        XCTAssertNil(engine.renderBlock(frameCount: 64))
    }

    func testResetRestartsSampleTimeAndSignal() throws {
        let tone = ToneGeneratorNode(waveform: .impulse, amplitude: 1)
        let engine = try makeOfflineEngine(format: AudioFormat(sampleRate: 44_100, channelCount: 1), attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()
        let first = AudioBuffer(format: engine.outputFormat, frameCapacity: 100)
        try engine.renderOffline(frames: 100, into: first)
        XCTAssertThrowsError(try engine.reset()) { XCTAssertEqual($0 as? AudioEngineError, .engineRunning) }
        engine.stop()
        try engine.reset()
        XCTAssertEqual(engine.sampleTime, 0)
        try engine.start()
        let second = AudioBuffer(format: engine.outputFormat, frameCapacity: 100)
        try engine.renderOffline(frames: 100, into: second)
        XCTAssertEqual(Array(first[0]), Array(second[0]))
        XCTAssertEqual(second[0][0], 1)
    }

    func testNodesSeeTheSampleTimeOfEachCycle() throws {
        let recorder = SampleTimeRecorder()
        let engine = try makeOfflineEngine(maximumFrameCount: 100, attaching: [recorder])
        engine.connect(recorder, to: engine.mainMixerNode)
        try engine.start()
        try engine.renderOffline(frames: 250, into: AudioBuffer(format: .standard, frameCapacity: 250))
        XCTAssertEqual(recorder.cycles.map(\.sampleTime), [0, 100, 200])
        XCTAssertEqual(recorder.cycles.map(\.frameCount), [100, 100, 50])
    }
}

/// A silent source that records the context of every cycle it renders.
private final class SampleTimeRecorder: AudioNode, @unchecked Sendable {
    var cycles: [RenderContext] = []

    override var numberOfInputs: Int { 0 }

    override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { .standard }

    override func prepare(_ setup: AudioNodeRenderSetup) throws { cycles.reserveCapacity(16) }

    override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        outputs[0].clear()
        cycles.append(context)
    }
}
