/// Changes the channel layout of the audio passing through: up- or down-mixes to another channel
/// count, or reorders, picks and silences channels through an explicit channel map. Put one where a
/// connection would otherwise fail with a format mismatch, e.g. a 4-channel source into a stereo
/// effect, or to swap left and right.
///
/// Without a map: the same count copies through; one channel into several duplicates it to every
/// output; several into one averages them; any other change copies channel i to channel i and
/// silences the outputs that have no input of that number.
/// With a map: output channel c carries input channel `channelMap[c]`, or silence when it is nil.
///
/// Why no sample-rate conversion: every node of an engine renders the same number of frames in a
/// cycle, so a node cannot take N frames at one rate and give N frames at another. An engine runs
/// at one sample rate. To mix in audio made at another rate, build that part as an engine of its
/// own at its rate and attach a `SampleRateConverterNode` (module Effects) playing it: a source
/// that pulls the inner engine through a resampler. To change the rate of a whole engine's output,
/// pull it through a `VarispeedRenderer` (Effects).
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class ConverterNode: AudioNode, @unchecked Sendable {
    /// Output channel count.
    public let outputChannelCount: Int
    /// For each output channel, the input channel it carries (nil: silence); nil for the default
    /// up/down-mix described above.
    public let channelMap: [Int?]?

    /// A converter to `channelCount` channels by the default up/down-mix.
    public init(name: String? = nil, channelCount: Int) {
        precondition(channelCount >= 1, "a converter needs at least one output channel")
        outputChannelCount = channelCount
        channelMap = nil
        super.init(name: name)
    }

    /// A converter whose output channel c carries input channel `channelMap[c]` (0-based), or
    /// silence where the entry is nil. `prepare` fails if an entry names a channel the input lacks.
    public init(name: String? = nil, channelMap: [Int?]) {
        precondition(!channelMap.isEmpty, "a channel map needs at least one output channel")
        outputChannelCount = channelMap.count
        self.channelMap = channelMap
        super.init(name: name)
    }

    /// What `prepare` found, resolved for the render path: the input channel each output copies
    /// (-1 silence, -2 the average of all inputs).
    private var sources: [Int] = []
    private static let silence = -1
    private static let average = -2

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        AudioFormat(sampleRate: inputFormats[0].sampleRate, channelCount: outputChannelCount)
    }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        let inputCount = setup.inputFormats[0].channelCount
        if let channelMap {
            for (output, source) in channelMap.enumerated() {
                if let source, !(0..<inputCount).contains(source) {
                    throw ChannelMapOutOfRange(outputChannel: output, inputChannel: source, inputChannelCount: inputCount)
                }
            }
            sources = channelMap.map { $0 ?? Self.silence }
        } else if inputCount == 1 {
            sources = Array(repeating: 0, count: outputChannelCount)
        } else if outputChannelCount == 1 {
            sources = [Self.average]
        } else {
            sources = (0..<outputChannelCount).map { $0 < inputCount ? $0 : Self.silence }
        }
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let input = inputs[0], output = outputs[0]
        for channel in sources.indices {
            let destination = output[channel]
            switch sources[channel] {
            case Self.silence:
                destination.update(repeating: 0)
            case Self.average:
                destination.update(repeating: 0)
                let scale = 1 / Float(input.channelCount)
                for source in 0..<input.channelCount {
                    let samples = input[source]
                    for i in 0..<destination.count { destination[i] += samples[i] * scale }
                }
            case let source:
                destination.baseAddress!.update(from: input[source].baseAddress!, count: destination.count)
            }
        }
    }

    /// `prepare` refused: the map names an input channel the connected input does not have.
    public struct ChannelMapOutOfRange: Error, CustomStringConvertible {
        public let outputChannel: Int
        public let inputChannel: Int
        public let inputChannelCount: Int
        public var description: String {
            "channel map: output channel \(outputChannel) takes input channel \(inputChannel), "
                + "but the input has \(inputChannelCount) channel(s) (0...\(inputChannelCount - 1))"
        }
    }
}
