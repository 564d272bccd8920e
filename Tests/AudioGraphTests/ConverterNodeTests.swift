import AudioGraph
import XCTest

final class ConverterNodeTests: XCTestCase {
    private func format(_ channels: Int) -> AudioFormat { AudioFormat(sampleRate: 44_100, channelCount: channels) }

    /// Renders 1024 frames of `source → converter → output` with the output at `outputChannels`.
    private func render(_ source: AudioNode, through converter: ConverterNode, outputChannels: Int) throws -> AudioBuffer {
        let engine = try makeOfflineEngine(format: format(outputChannels), attaching: [source, converter])
        engine.connect([source, converter, engine.outputNode])
        try engine.start()
        let buffer = AudioBuffer(format: format(outputChannels), frameCapacity: 1024)
        try engine.renderOffline(frames: 1024, into: buffer)
        return buffer
    }

    /// A source whose channel c carries the constant (c + 1) / 10.
    private final class ChannelNumberSource: AudioNode, @unchecked Sendable {
        let format: AudioFormat
        init(channelCount: Int) {
            format = AudioFormat(sampleRate: 44_100, channelCount: channelCount)
            super.init(name: "numbers")
        }
        override var numberOfInputs: Int { 0 }
        override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { format }
        override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
            for channel in 0..<format.channelCount { outputs[0][channel].update(repeating: Float(channel + 1) / 10) }
        }
    }

    func testMonoIsDuplicatedToEveryOutputChannel() throws {
        let tone = ToneGeneratorNode(frequency: 440, amplitude: 0.5)
        let output = try render(tone, through: ConverterNode(channelCount: 2), outputChannels: 2)
        XCTAssertGreaterThan(rms(output, channel: 0), 0.3)
        XCTAssertEqual(Array(output[0]), Array(output[1]))
    }

    func testStereoIsAveragedToMono() throws {
        let output = try render(ChannelNumberSource(channelCount: 2), through: ConverterNode(channelCount: 1),
                                outputChannels: 1)
        XCTAssertEqual(output[0][0], 0.15, accuracy: 1e-7)
        XCTAssertEqual(output[0][1023], 0.15, accuracy: 1e-7)
    }

    func testWideningCopiesTheChannelsThereAreAndSilencesTheRest() throws {
        let output = try render(ChannelNumberSource(channelCount: 2), through: ConverterNode(channelCount: 4),
                                outputChannels: 4)
        XCTAssertEqual([output[0][7], output[1][7], output[2][7], output[3][7]], [0.1, 0.2, 0, 0])
    }

    func testAChannelMapPicksReordersAndSilences() throws {
        let converter = ConverterNode(channelMap: [2, 0, nil, 2])
        let output = try render(ChannelNumberSource(channelCount: 3), through: converter, outputChannels: 4)
        XCTAssertEqual([output[0][500], output[1][500], output[2][500], output[3][500]], [0.3, 0.1, 0, 0.3])
    }

    func testAMapNamingAMissingInputChannelFailsAtStartNamingTheConverter() throws {
        let source = ChannelNumberSource(channelCount: 2)
        let converter = ConverterNode(name: "swap", channelMap: [1, 2])
        let engine = try makeOfflineEngine(attaching: [source, converter])
        engine.connect([source, converter, engine.outputNode])
        XCTAssertThrowsError(try engine.start()) { error in
            XCTAssertEqual(error as? AudioEngineError, .preparationFailed(
                node: "swap", reason: "channel map: output channel 1 takes input channel 2, but the input has 2 channel(s) (0...1)"))
        }
    }

    func testAConverterMendsTheMismatchTheEngineReported() throws {
        let source = ChannelNumberSource(channelCount: 3)
        let engine = try makeOfflineEngine(attaching: [source])
        engine.connect(source, to: engine.mainMixerNode)
        XCTAssertThrowsError(try engine.start()) { error in
            XCTAssertTrue("\(error)".contains("ConverterNode"))
        }
        let converter = ConverterNode(channelCount: 2)
        engine.attach(converter)
        engine.disconnectNodeOutput(source)
        engine.connect([source, converter, engine.mainMixerNode])
        XCTAssertNoThrow(try engine.start())
    }
}
