import AudioGraph
import XCTest

final class SourceAndSplitterTests: XCTestCase {
    func testTheSineHasItsFrequencyAndAmplitudeOnEveryChannel() throws {
        let format = AudioFormat(sampleRate: 48_000, channelCount: 2)
        let tone = ToneGeneratorNode(frequency: 1000, amplitude: 0.8, format: format)
        let engine = try makeOfflineEngine(format: format, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()
        let buffer = AudioBuffer(format: format, frameCapacity: 4800)
        try engine.renderOffline(frames: 4800, into: buffer)
        // 4800 frames = exactly 100 periods at 1 kHz.
        XCTAssertEqual(rms(buffer, channel: 0), 0.8 / Float(2).squareRoot(), accuracy: 1e-4)
        XCTAssertEqual(Array(buffer[0]), Array(buffer[1]))
        var upwardZeroCrossings = 0
        for i in 1..<4800 where buffer[0][i - 1] < 0 && buffer[0][i] >= 0 { upwardZeroCrossings += 1 }
        XCTAssertEqual(upwardZeroCrossings, 99, "one per period after the first")
    }

    func testTheImpulseIsOneSampleThenSilence() throws {
        let mono = AudioFormat(sampleRate: 44_100, channelCount: 1)
        let tone = ToneGeneratorNode(waveform: .impulse, amplitude: 0.9, format: mono)
        let engine = try makeOfflineEngine(format: mono, maximumFrameCount: 64, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()
        let buffer = AudioBuffer(format: mono, frameCapacity: 200)
        try engine.renderOffline(frames: 200, into: buffer)
        XCTAssertEqual(buffer[0][0], 0.9)
        XCTAssertEqual(buffer[0].dropFirst().filter { $0 != 0 }.count, 0)
    }

    func testASplitterFeedsTwoMixerInputsWithTheirOwnPan() throws {
        let mono = AudioFormat(sampleRate: 44_100, channelCount: 1)
        let tone = ToneGeneratorNode(waveform: .impulse, amplitude: 1, format: mono)
        let splitter = SplitterNode(name: "split", outputCount: 2)
        let engine = try makeOfflineEngine(attaching: [tone, splitter])
        engine.connect(tone, to: splitter)
        engine.connect(splitter, to: engine.mainMixerNode, fromBus: 0, toBus: 0)
        engine.connect(splitter, to: engine.mainMixerNode, fromBus: 1, toBus: 1)
        engine.mainMixerNode.setPan(-1, forInput: 0)
        engine.mainMixerNode.setPan(1, forInput: 1)
        engine.mainMixerNode.setVolume(0.5, forInput: 1)
        try engine.start()
        let buffer = AudioBuffer(format: .standard, frameCapacity: 32)
        try engine.renderOffline(frames: 32, into: buffer)
        XCTAssertEqual(buffer[0][0], 1, accuracy: 1e-6)
        XCTAssertEqual(buffer[1][0], 0.5, accuracy: 1e-6)
    }
}
