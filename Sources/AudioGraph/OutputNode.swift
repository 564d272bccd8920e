/// The end of an engine's signal path (`AudioEngine.outputNode`): what arrives at its one input is
/// what the engine renders. It takes exactly `format`; connect through a mixer to adapt.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class OutputNode: AudioNode, @unchecked Sendable {
    /// The format the engine renders. Set by `enableManualRenderingMode` (or an output driver);
    /// change it while the engine is stopped.
    public internal(set) var format: AudioFormat

    init(format: AudioFormat) {
        self.format = format
        super.init(name: "output")
    }

    public override var numberOfOutputs: Int { 0 }

    public override func acceptsInputFormat(_ format: AudioFormat, onBus bus: Int) -> Bool {
        format == self.format
    }
}
