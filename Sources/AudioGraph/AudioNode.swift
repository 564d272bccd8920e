/// A unit of audio processing in an `AudioEngine`: a source (no inputs), a processor, a mixer, or
/// the engine's output. Subclass it to make a node; the engine drives the subclass in three steps:
///
/// 1. Formats, at `AudioEngine.prepare()`, in signal order: `acceptsInputFormat(_:onBus:)` for each
///    connected input, then `outputFormat(forBus:inputFormats:)` for each output bus.
/// 2. `prepare(_:)`, once per engine prepare, off the render thread: allocate everything here.
/// 3. `render(_:inputs:outputs:)` on the render thread, once per render cycle, after every node it
///    pulls from has rendered. It must not allocate, lock, block, log or do I/O. Walk arrays by
///    index there (`for i in array.indices`): `for element in array` allocates in debug builds.
///
/// A node belongs to at most one engine. Change a node's connections and taps while its engine is
/// stopped; they take effect at the next `prepare()`/`start()`.
// Why unchecked: set up while its engine is stopped, then rendered by the engine's one render thread; parameters other threads may change are atomics. Every node restates this.
open class AudioNode: @unchecked Sendable {
    /// The name errors and descriptions use. The engine makes names unique when the node is attached.
    public internal(set) var name: String

    /// The engine the node is attached to.
    public internal(set) weak var engine: AudioEngine?

    var inputTaps: [(bus: Int, tap: any ProcessingTap)] = []
    var outputTaps: [(bus: Int, tap: any ProcessingTap)] = []

    /// A node called `name`, or after its type when `name` is nil.
    public init(name: String? = nil) {
        self.name = name ?? String(describing: type(of: self))
    }

    /// Number of input buses (0 for a source).
    open var numberOfInputs: Int { 1 }

    /// Number of output buses (0 for the engine's output node).
    open var numberOfOutputs: Int { 1 }

    /// Whether the engine may start with some input buses unconnected (true for mixers). When false,
    /// an unconnected input is a start error naming this node and the bus.
    open var allowsUnconnectedInputs: Bool { false }

    /// Whether `format` can arrive on input `bus` without a converter. Default: any format.
    open func acceptsInputFormat(_ format: AudioFormat, onBus bus: Int) -> Bool { true }

    /// The format this node produces on output `bus`, given the formats of its connected inputs in bus
    /// order (empty for a source). Default: the format of the first connected input.
    open func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        precondition(!inputFormats.isEmpty, "\(name): a source node must override outputFormat(forBus:inputFormats:)")
        return inputFormats[0]
    }

    /// Allocates what rendering needs, once formats are known. Called by `AudioEngine.prepare()` off
    /// the render thread. Throw to refuse (the engine reports the error with this node's name).
    open func prepare(_ setup: AudioNodeRenderSetup) throws {}

    /// Renders `context.frameCount` frames into `outputs` (one buffer per output bus, each with
    /// `frameLength == context.frameCount`, contents undefined until written) from `inputs` (one buffer
    /// per connected input bus, in the order of `setup.connectedInputBuses`; read only).
    /// Runs on the render thread: no allocation, locks, blocking, logging or I/O.
    open func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {}

    /// Forgets rendering state (phases, voices, tails) so the next cycle starts afresh at sample time 0.
    /// Called by `AudioEngine.reset()` off the render thread while the engine is stopped.
    open func reset() {}

    /// Installs `tap` on input or output `point` of this node. A tap on an input sees (and may
    /// rewrite) the audio just before this node renders; a tap on an output, just after. Several taps
    /// on one point run in installation order. Takes effect at the engine's next start.
    public func installTap(_ tap: any ProcessingTap, at point: TapPoint) {
        switch point {
        case .input(let bus): inputTaps.append((bus, tap))
        case .output(let bus): outputTaps.append((bus, tap))
        }
    }

    /// Removes `tap` from every point of this node. Takes effect at the engine's next start.
    public func removeTap(_ tap: any ProcessingTap) {
        inputTaps.removeAll { $0.tap === tap }
        outputTaps.removeAll { $0.tap === tap }
    }
}

/// What a node learns at prepare time about the cycle it will render in.
public struct AudioNodeRenderSetup: Sendable {
    /// The input buses that have a connection, ascending; `render`'s `inputs` follow this order.
    public let connectedInputBuses: [Int]
    /// The format arriving on each connected input bus (parallel to `connectedInputBuses`).
    public let inputFormats: [AudioFormat]
    /// The format of each output bus, indexed by bus.
    public let outputFormats: [AudioFormat]
    /// The largest `frameCount` any render cycle will ask for.
    public let maximumFrameCount: Int

    public init(connectedInputBuses: [Int], inputFormats: [AudioFormat], outputFormats: [AudioFormat],
                maximumFrameCount: Int) {
        self.connectedInputBuses = connectedInputBuses
        self.inputFormats = inputFormats
        self.outputFormats = outputFormats
        self.maximumFrameCount = maximumFrameCount
    }
}
