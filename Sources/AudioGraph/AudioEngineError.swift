/// Why an engine could not prepare, start or render. Every case names the nodes or the connection
/// at fault; `description` says what to do about it.
public enum AudioEngineError: Error, Equatable, CustomStringConvertible {
    /// A connection involves a node that is not attached to this engine.
    case nodeNotAttached(node: String)
    /// A connection uses a bus the node does not have.
    case busOutOfRange(node: String, bus: Int, isInput: Bool, busCount: Int)
    /// A node in the signal path has an input bus with nothing connected.
    case unconnectedInput(node: String, bus: Int)
    /// One output bus is connected to several inputs (a SplitterNode does that).
    case outputConnectedToSeveralInputs(connections: [String])
    /// The connections form a loop; `nodes` lists it in signal order.
    case cycle(nodes: [String])
    /// The format leaving `connection`'s source is not one its destination (or its explicit format)
    /// accepts.
    case formatMismatch(connection: String, sourceFormat: AudioFormat, expected: AudioFormat?)
    /// A node's or tap's `prepare` threw.
    case preparationFailed(node: String, reason: String)
    /// The engine must be stopped for this.
    case engineRunning
    /// The engine must be running for this.
    case engineNotRunning
    /// `renderOffline` needs manual rendering mode.
    case notInManualRenderingMode
    /// `renderOffline` was given a buffer whose format is not the manual rendering format.
    case bufferFormatMismatch(buffer: AudioFormat, expected: AudioFormat)

    public var description: String {
        switch self {
        case .nodeNotAttached(let node):
            return "node '\(node)' is connected but not attached to the engine; call attach(_:) first"
        case .busOutOfRange(let node, let bus, let isInput, let count):
            return "node '\(node)' has \(count) \(isInput ? "input" : "output") bus(es); bus \(bus) does not exist"
        case .unconnectedInput(let node, let bus):
            return "input bus \(bus) of node '\(node)' is not connected"
        case .outputConnectedToSeveralInputs(let connections):
            return "one output bus feeds several inputs (\(connections.joined(separator: "; "))); "
                + "connect it to a SplitterNode and each destination to one splitter output"
        case .cycle(let nodes):
            return "the connections form a cycle: " + (nodes + [nodes[0]]).map { "'\($0)'" }.joined(separator: " → ")
        case .formatMismatch(let connection, let source, let expected):
            let wanted = expected.map { " but \($0) is expected" } ?? " which the destination does not accept"
            let converter = "insert a ConverterNode between them to change the channel count or order"
            let rateConverter = "render the source in an engine of its own at its rate and bring that engine in "
                + "through a SampleRateConverterNode (module Effects)"
            let remedy = switch expected {
            case .some(let expected) where expected.sampleRate != source.sampleRate:
                "an engine runs at one sample rate: make the source produce "
                    + "\(expected.description.prefix { $0 != "," }), or \(rateConverter)"
            case .some: converter
            case .none: "\(converter); if the sample rates differ, \(rateConverter)"
            }
            return "format mismatch on \(connection): the source produces \(source)\(wanted); \(remedy)"
        case .preparationFailed(let node, let reason):
            return "'\(node)' could not prepare: \(reason)"
        case .engineRunning:
            return "the engine is running; stop it first"
        case .engineNotRunning:
            return "the engine is not running; start it first"
        case .notInManualRenderingMode:
            return "offline rendering needs enableManualRenderingMode(format:maximumFrameCount:)"
        case .bufferFormatMismatch(let buffer, let expected):
            return "the buffer is \(buffer) but the engine renders \(expected)"
        }
    }
}
