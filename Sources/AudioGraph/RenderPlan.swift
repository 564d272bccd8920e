/// The prepared form of an engine's graph: nodes in pull order, each with its input and output
/// buffers and taps resolved, so a render cycle is a straight walk with no lookups or allocation.
/// Built (and validated) by `AudioEngine.prepare()`.
final class RenderPlan {
    /// A tap bound to the buffer it processes.
    struct TapBinding {
        let tap: any ProcessingTap
        let buffer: AudioBuffer
    }

    /// One node's part of a render cycle.
    struct Step {
        let node: AudioNode
        let inputs: [AudioBuffer]
        let outputs: [AudioBuffer]
        let inputTaps: [TapBinding]
        let outputTaps: [TapBinding]
    }

    let steps: [Step]
    /// The buffer arriving at the output node, after the output node's input taps.
    let output: AudioBuffer
    let maximumFrameCount: Int
    private var preparedTaps: [any ProcessingTap] = []

    init(connections: [AudioConnection], attachedNodes: [AudioNode], outputNode: AudioNode,
         maximumFrameCount: Int) throws(AudioEngineError) {
        self.maximumFrameCount = maximumFrameCount
        let graph = try SignalGraph(connections: connections, attachedNodes: attachedNodes)
        let order = try graph.pullOrder(endingAt: outputNode)

        var outputBuffers: [ObjectIdentifier: [AudioBuffer]] = [:]
        var steps: [Step] = []
        for node in order {
            let inputs = graph.inputs(of: node)
            let inputFormats = try inputs.map { connection throws(AudioEngineError) -> AudioFormat in
                let produced = outputBuffers[ObjectIdentifier(connection.source)]![connection.sourceBus].format
                if let expected = connection.format, expected != produced {
                    throw .formatMismatch(connection: connection.description, sourceFormat: produced, expected: expected)
                }
                guard node.acceptsInputFormat(produced, onBus: connection.destinationBus) else {
                    throw .formatMismatch(connection: connection.description, sourceFormat: produced, expected: nil)
                }
                return produced
            }
            let outputFormats = (0..<node.numberOfOutputs).map {
                node.outputFormat(forBus: $0, inputFormats: inputFormats)
            }
            let outputs = outputFormats.map { AudioBuffer(format: $0, frameCapacity: maximumFrameCount) }
            outputBuffers[ObjectIdentifier(node)] = outputs
            let inputBuffers = inputs.map { outputBuffers[ObjectIdentifier($0.source)]![$0.sourceBus] }
            let setup = AudioNodeRenderSetup(connectedInputBuses: inputs.map(\.destinationBus),
                                             inputFormats: inputFormats, outputFormats: outputFormats,
                                             maximumFrameCount: maximumFrameCount)
            do {
                try node.prepare(setup)
            } catch {
                throw .preparationFailed(node: node.name, reason: "\(error)")
            }
            steps.append(Step(node: node, inputs: inputBuffers, outputs: outputs,
                              inputTaps: try Self.bindTaps(node.inputTaps, of: node, to: inputBuffers,
                                                           buses: setup.connectedInputBuses, isInput: true),
                              outputTaps: try Self.bindTaps(node.outputTaps, of: node, to: outputs,
                                                            buses: Array(outputs.indices), isInput: false)))
        }
        self.steps = steps
        self.output = steps.last!.inputs[0]
        try prepareTaps()
    }

    private static func bindTaps(_ taps: [(bus: Int, tap: any ProcessingTap)], of node: AudioNode,
                                 to buffers: [AudioBuffer], buses: [Int], isInput: Bool) throws(AudioEngineError) -> [TapBinding] {
        try taps.map { entry throws(AudioEngineError) -> TapBinding in
            guard let index = buses.firstIndex(of: entry.bus) else {
                throw .busOutOfRange(node: node.name, bus: entry.bus, isInput: isInput,
                                     busCount: isInput ? node.numberOfInputs : node.numberOfOutputs)
            }
            return TapBinding(tap: entry.tap, buffer: buffers[index])
        }
    }

    private func prepareTaps() throws(AudioEngineError) {
        for step in steps {
            for (binding, place) in step.inputTaps.map({ ($0, "input") }) + step.outputTaps.map({ ($0, "output") }) {
                do {
                    try binding.tap.prepare(format: binding.buffer.format, maximumFrameCount: maximumFrameCount)
                } catch {
                    unprepareTaps()
                    throw .preparationFailed(node: "tap on \(place) of '\(step.node.name)'", reason: "\(error)")
                }
                preparedTaps.append(binding.tap)
            }
        }
    }

    /// Calls `unprepare` on every tap that was prepared, once.
    func unprepareTaps() {
        for tap in preparedTaps { tap.unprepare() }
        preparedTaps.removeAll()
    }

    /// One render cycle: every node in pull order, with its taps. No allocation, locks or I/O.
    /// Arrays are walked by index: `for element in array` allocates an iterator frame in debug builds.
    func render(_ context: RenderContext) {
        for stepIndex in steps.indices {
            let step = steps[stepIndex]
            for bus in step.outputs.indices { step.outputs[bus].frameLength = context.frameCount }
            Self.process(step.inputTaps, context)
            step.node.render(context, inputs: step.inputs, outputs: step.outputs)
            Self.process(step.outputTaps, context)
        }
    }

    private static func process(_ bindings: [TapBinding], _ context: RenderContext) {
        for index in bindings.indices {
            bindings[index].tap.process(bindings[index].buffer, context: context)
        }
    }
}
