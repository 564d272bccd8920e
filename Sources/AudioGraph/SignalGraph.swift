/// The connections of an engine indexed for validation: who feeds each input, checked for
/// unattached nodes, missing buses and fanned-out outputs, and sorted into pull order.
struct SignalGraph {
    private var inputsByNode: [ObjectIdentifier: [AudioConnection]] = [:]

    init(connections: [AudioConnection], attachedNodes: [AudioNode]) throws(AudioEngineError) {
        let attached = Set(attachedNodes.map(ObjectIdentifier.init))
        var destinationsByOutput: [OutputKey: [AudioConnection]] = [:]
        for connection in connections {
            for node in [connection.source, connection.destination] where !attached.contains(ObjectIdentifier(node)) {
                throw .nodeNotAttached(node: node.name)
            }
            if !(0..<connection.source.numberOfOutputs).contains(connection.sourceBus) {
                throw .busOutOfRange(node: connection.source.name, bus: connection.sourceBus,
                                     isInput: false, busCount: connection.source.numberOfOutputs)
            }
            if !(0..<connection.destination.numberOfInputs).contains(connection.destinationBus) {
                throw .busOutOfRange(node: connection.destination.name, bus: connection.destinationBus,
                                     isInput: true, busCount: connection.destination.numberOfInputs)
            }
            inputsByNode[ObjectIdentifier(connection.destination), default: []].append(connection)
            destinationsByOutput[OutputKey(connection), default: []].append(connection)
        }
        for connection in connections {
            let fanned = destinationsByOutput[OutputKey(connection)]!
            if fanned.count > 1 {
                throw .outputConnectedToSeveralInputs(connections: fanned.map(\.description))
            }
        }
        for key in inputsByNode.keys { inputsByNode[key]!.sort { $0.destinationBus < $1.destinationBus } }
    }

    /// The connections into `node`, by ascending input bus.
    func inputs(of node: AudioNode) -> [AudioConnection] {
        inputsByNode[ObjectIdentifier(node)] ?? []
    }

    /// Every node `last` pulls from, directly or not, sources first and `last` at the end.
    /// Throws for a cycle (naming its nodes in signal order) and for unconnected inputs.
    func pullOrder(endingAt last: AudioNode) throws(AudioEngineError) -> [AudioNode] {
        var order: [AudioNode] = []
        var finished: Set<ObjectIdentifier> = []
        var path: [AudioNode] = []
        try visit(last, path: &path, finished: &finished, order: &order)
        return order
    }

    private func visit(_ node: AudioNode, path: inout [AudioNode], finished: inout Set<ObjectIdentifier>,
                       order: inout [AudioNode]) throws(AudioEngineError) {
        if finished.contains(ObjectIdentifier(node)) { return }
        if let start = path.firstIndex(where: { $0 === node }) {
            // `path` runs from the output backwards, so signal order is the reverse.
            throw .cycle(nodes: path[start...].reversed().map(\.name))
        }
        let inputs = inputs(of: node)
        if !node.allowsUnconnectedInputs {
            for bus in 0..<node.numberOfInputs where !inputs.contains(where: { $0.destinationBus == bus }) {
                throw .unconnectedInput(node: node.name, bus: bus)
            }
        }
        path.append(node)
        for connection in inputs {
            try visit(connection.source, path: &path, finished: &finished, order: &order)
        }
        path.removeLast()
        finished.insert(ObjectIdentifier(node))
        order.append(node)
    }

    private struct OutputKey: Hashable {
        let node: ObjectIdentifier
        let bus: Int
        init(_ connection: AudioConnection) {
            node = ObjectIdentifier(connection.source)
            bus = connection.sourceBus
        }
    }
}
