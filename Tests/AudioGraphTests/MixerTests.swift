import AudioGraph
import XCTest

final class MixerTests: XCTestCase {
    private let mono = AudioFormat(sampleRate: 44_100, channelCount: 1)

    /// Renders `frames` frames of an engine whose main mixer is fed by `sources`, after `configure`.
    private func render(_ sources: [AudioNode], frames: Int = 512,
                        configure: (MixerNode) -> Void = { _ in }) throws -> AudioBuffer {
        let engine = try makeOfflineEngine(attaching: sources)
        for source in sources { engine.connect(source, to: engine.mainMixerNode) }
        configure(engine.mainMixerNode)
        try engine.start()
        let buffer = AudioBuffer(format: engine.outputFormat, frameCapacity: frames)
        try engine.renderOffline(frames: frames, into: buffer)
        return buffer
    }

    private func impulse(_ amplitude: Float = 1, format: AudioFormat? = nil) -> ToneGeneratorNode {
        ToneGeneratorNode(waveform: .impulse, amplitude: amplitude, format: format ?? mono)
    }

    func testAMonoInputAtCentreIsEqualPowerOnBothSides() throws {
        let out = try render([impulse()])
        XCTAssertEqual(out[0][0], Float(0.5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(out[1][0], Float(0.5).squareRoot(), accuracy: 1e-6)
    }

    func testPanKeepsPowerConstantAndHardPanSilencesTheOtherSide() throws {
        for pan: Float in [-1, -0.5, 0.25, 0.8, 1] {
            let out = try render([impulse()]) { $0.setPan(pan, forInput: 0) }
            XCTAssertEqual(out[0][0] * out[0][0] + out[1][0] * out[1][0], 1, accuracy: 1e-6, "pan \(pan)")
            if pan < 0 { XCTAssertGreaterThan(out[0][0], out[1][0], "pan \(pan)") }
            if pan > 0 { XCTAssertGreaterThan(out[1][0], out[0][0], "pan \(pan)") }
        }
        let left = try render([impulse()]) { $0.setPan(-1, forInput: 0) }
        XCTAssertEqual(left[1][0], 0, accuracy: 1e-7)
        XCTAssertEqual(left[0][0], 1, accuracy: 1e-7)
    }

    func testAStereoInputIsBalancedWithUnityAtCentre() throws {
        let stereoImpulse = impulse(0.5, format: .standard)
        let centre = try render([stereoImpulse])
        XCTAssertEqual(centre[0][0], 0.5)
        XCTAssertEqual(centre[1][0], 0.5)
        let right = try render([impulse(0.5, format: .standard)]) { $0.setPan(1, forInput: 0) }
        XCTAssertEqual(right[0][0], 0, accuracy: 1e-7)
        XCTAssertEqual(right[1][0], 0.5)
    }

    func testInputsAreSummedWithTheirVolumesAndTheOutputVolume() throws {
        let out = try render([impulse(0.5, format: .standard), impulse(0.25, format: .standard)]) { mixer in
            mixer.setVolume(0.5, forInput: 0)
            mixer.setVolume(2, forInput: 1)
            mixer.outputVolume = 0.5
        }
        XCTAssertEqual(out[0][0], (0.5 * 0.5 + 0.25 * 2) * 0.5)
        XCTAssertEqual(out[1][0], (0.5 * 0.5 + 0.25 * 2) * 0.5)
        XCTAssertEqual(out[0][1], 0)
    }

    func testVolumeChangedWhilePlayingAppliesFromTheNextCycle() throws {
        // 441 frames of 100 Hz at 44.1 kHz is exactly one period, so each cycle has the same RMS.
        let tone = ToneGeneratorNode(frequency: 100, amplitude: 1, format: .standard)
        let engine = try makeOfflineEngine(maximumFrameCount: 441, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()
        let loud = try XCTUnwrap(engine.renderBlock(frameCount: 441).map { rms($0, channel: 0) })
        engine.mainMixerNode.setVolume(0.25, forInput: 0)
        XCTAssertEqual(engine.mainMixerNode.volume(forInput: 0), 0.25)
        let quiet = try XCTUnwrap(engine.renderBlock(frameCount: 441).map { rms($0, channel: 0) })
        XCTAssertEqual(quiet / loud, 0.25, accuracy: 1e-4)
    }

    func testPanIsClampedAndDefaultsAreUnityAndCentre() {
        let mixer = MixerNode()
        XCTAssertEqual(mixer.volume(forInput: 7), 1)
        XCTAssertEqual(mixer.pan(forInput: 7), 0)
        mixer.setPan(3, forInput: 7)
        XCTAssertEqual(mixer.pan(forInput: 7), 1)
    }

    func testAMixerWithAFixedFormatIsASubmix() throws {
        let tone = impulse()
        let submix = MixerNode(name: "submix", format: mono)
        let engine = try makeOfflineEngine(attaching: [tone, submix])
        engine.connect([tone, submix, engine.mainMixerNode])
        try engine.start()
        let buffer = AudioBuffer(format: .standard, frameCapacity: 16)
        try engine.renderOffline(frames: 16, into: buffer)
        XCTAssertEqual(submix.format, mono)
        XCTAssertEqual(engine.mainMixerNode.format, .standard)
        XCTAssertEqual(buffer[0][0], Float(0.5).squareRoot(), accuracy: 1e-6)
    }
}
