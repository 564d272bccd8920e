/// Sends one input to several destinations: each output bus carries a copy of the input, in its
/// format. Use it where one node's output must feed several inputs (the engine refuses to connect
/// one output bus to more than one input).
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class SplitterNode: AudioNode, @unchecked Sendable {
    private let outputCount: Int

    /// A splitter with `outputCount` (≥ 1) output buses.
    public init(name: String? = nil, outputCount: Int) {
        precondition(outputCount >= 1, "a splitter needs at least one output")
        self.outputCount = outputCount
        super.init(name: name)
    }

    public override var numberOfOutputs: Int { outputCount }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        for bus in outputs.indices { outputs[bus].copy(from: inputs[0], frameCount: context.frameCount) }
    }
}
