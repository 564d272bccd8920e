import Atomics

/// A graph of audio nodes rendered in blocks: attach nodes, connect them in signal order, start,
/// and pull audio out of `outputNode`, offline (`renderOffline`) or from a real-time output driver
/// (`renderBlock`). Both use the same render path, which neither allocates nor locks.
///
/// ```swift
/// let engine = AudioEngine()
/// let tone = ToneGeneratorNode(frequency: 440)
/// engine.attach(tone)
/// engine.connect(tone, to: engine.mainMixerNode)
/// try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: 512)
/// try engine.start()
/// let buffer = AudioBuffer(format: .standard, frameCapacity: 44_100)
/// let frames = try engine.renderOffline(frames: 44_100, into: buffer)
/// ```
///
/// Threading: build and start the engine on one thread. `renderBlock`/`renderOffline` run on one
/// render thread at a time. Graph changes (attach, connect, taps, node formats) made while running
/// take effect at the next `start()`.
// Why unchecked: built and started on one thread, rendered by one render thread at a time (above); the two never overlap.
public final class AudioEngine: @unchecked Sendable {
    /// The end of the signal path: whatever feeds its input bus 0 is what the engine renders.
    public let outputNode: OutputNode

    /// Every node attached, in attachment order (the output node first).
    public private(set) var attachedNodes: [AudioNode] = []

    /// Every connection, in the order made.
    public private(set) var connections: [AudioConnection] = []

    /// Whether the engine is started (rendering is possible).
    public private(set) var isRunning = false

    /// Whether `enableManualRenderingMode` is on, so `renderOffline` may be used.
    public private(set) var isInManualRenderingMode = false

    /// The largest frame count one render cycle may pull; buffers are allocated for it at prepare.
    /// Set it while stopped; takes effect at the next prepare.
    public var maximumFrameCount: Int = 512 {
        didSet { precondition(maximumFrameCount > 0, "maximumFrameCount must be positive") }
    }

    private var mainMixer: MixerNode?
    private var plan: RenderPlan?
    private let renderedFrames = ManagedAtomic<Int64>(0)

    /// An engine with only its output node, at `AudioFormat.standard`.
    public init() {
        outputNode = OutputNode(format: .standard)
        attach(outputNode)
    }

    /// The engine's mixer, made, attached and connected to `outputNode` on first use. Its output
    /// format follows `outputNode.format`.
    public var mainMixerNode: MixerNode {
        if let mainMixer { return mainMixer }
        let mixer = MixerNode(name: "main mixer")
        attach(mixer)
        connect(mixer, to: outputNode, toBus: 0)
        mainMixer = mixer
        return mixer
    }

    /// The format the engine renders: `outputNode.format`.
    public var outputFormat: AudioFormat { outputNode.format }

    /// Sample time of the next frame to render: frames rendered since start or `reset()`.
    /// Readable from any thread.
    public var sampleTime: Int64 { renderedFrames.load(ordering: .relaxed) }

    // MARK: Building the graph

    /// Adds `node` to the engine so it can be connected. A node already attached here is left alone;
    /// its name gets a number appended if another attached node has it.
    public func attach(_ node: AudioNode) {
        if node.engine === self { return }
        precondition(node.engine == nil, "'\(node.name)' is attached to another engine")
        let base = node.name
        var suffix = 2
        while attachedNodes.contains(where: { $0.name == node.name }) {
            node.name = "\(base) \(suffix)"
            suffix += 1
        }
        node.engine = self
        attachedNodes.append(node)
    }

    /// Removes `node` and all its connections from the engine.
    public func detach(_ node: AudioNode) {
        guard node.engine === self, node !== outputNode else { return }
        connections.removeAll { $0.source === node || $0.destination === node }
        attachedNodes.removeAll { $0 === node }
        if node === mainMixer { mainMixer = nil }
        node.engine = nil
    }

    /// Connects output `fromBus` of `source` to input `toBus` of `destination` (by default its first
    /// input bus with nothing connected: the next free mixer input), replacing whatever fed that
    /// input. `format`, when given, is checked against what the source produces at start.
    /// Both nodes must be attached; mistakes are reported by `prepare()`/`start()`.
    public func connect(_ source: AudioNode, to destination: AudioNode,
                        fromBus: Int = 0, toBus: Int? = nil, format: AudioFormat? = nil) {
        let bus = toBus ?? nextFreeInputBus(of: destination)
        disconnectNodeInput(destination, bus: bus)
        connections.append(AudioConnection(source: source, sourceBus: fromBus,
                                           destination: destination, destinationBus: bus, format: format))
    }

    /// Connects `nodes` one after another in signal order, each output bus 0 to the next node's next
    /// free input: `connect([tone, filter, engine.mainMixerNode])`.
    public func connect(_ nodes: [AudioNode], format: AudioFormat? = nil) {
        for (source, destination) in zip(nodes, nodes.dropFirst()) {
            connect(source, to: destination, format: format)
        }
    }

    /// Removes the connection into input `bus` of `node`, or into all its inputs when `bus` is nil.
    public func disconnectNodeInput(_ node: AudioNode, bus: Int? = nil) {
        connections.removeAll { $0.destination === node && (bus == nil || $0.destinationBus == bus) }
    }

    /// Removes the connections out of output `bus` of `node`, or out of all its outputs when nil.
    public func disconnectNodeOutput(_ node: AudioNode, bus: Int? = nil) {
        connections.removeAll { $0.source === node && (bus == nil || $0.sourceBus == bus) }
    }

    /// The lowest input bus of `node` with nothing connected.
    public func nextFreeInputBus(of node: AudioNode) -> Int {
        let used = Set(connections.lazy.filter { $0.destination === node }.map(\.destinationBus))
        return (0...).first { !used.contains($0) }!
    }

    // MARK: Lifecycle

    /// Renders offline from now on: `outputNode` takes `format`, and `renderOffline` may pull up to
    /// `maximumFrameCount` frames per cycle. Call while stopped.
    public func enableManualRenderingMode(format: AudioFormat, maximumFrameCount: Int) throws(AudioEngineError) {
        guard !isRunning else { throw .engineRunning }
        outputNode.format = format
        self.maximumFrameCount = maximumFrameCount
        isInManualRenderingMode = true
    }

    /// Leaves manual rendering mode. Call while stopped.
    public func disableManualRenderingMode() throws(AudioEngineError) {
        guard !isRunning else { throw .engineRunning }
        isInManualRenderingMode = false
    }

    /// Checks the graph and allocates everything rendering needs: the render order, one buffer per
    /// node output, node and tap preparation. Errors name the node or connection at fault.
    public func prepare() throws(AudioEngineError) {
        guard !isRunning else { throw .engineRunning }
        plan?.unprepareTaps()
        plan = nil
        plan = try RenderPlan(connections: connections, attachedNodes: attachedNodes,
                              outputNode: outputNode, maximumFrameCount: maximumFrameCount)
    }

    /// Starts the engine (preparing it first if needed). Rendering is possible from now on.
    public func start() throws(AudioEngineError) {
        if isRunning { return }
        if plan == nil { try prepare() }
        isRunning = true
    }

    /// Stops the engine and releases what prepare made (taps are unprepared).
    ///
    /// Threading: call it only once no thread is inside `renderBlock` any more — a real-time driver
    /// (AudioOutput's render thread) is stopped and joined first. The render plan is released here,
    /// and `renderBlock` reads it without synchronisation, which is what keeps rendering lock-free.
    public func stop() {
        isRunning = false
        plan?.unprepareTaps()
        plan = nil
    }

    /// Sends sample time back to 0 and has every node forget its rendering state. Call while stopped.
    public func reset() throws(AudioEngineError) {
        guard !isRunning else { throw .engineRunning }
        renderedFrames.store(0, ordering: .relaxed)
        for node in attachedNodes { node.reset() }
    }

    // MARK: Rendering

    /// Runs one render cycle of `frameCount` frames (1...maximumFrameCount) and returns the buffer
    /// arriving at `outputNode` (valid until the next cycle), or nil when the engine is not running
    /// or `frameCount` is out of range. The real-time entry point: no allocation, locks or I/O.
    public func renderBlock(frameCount: Int) -> AudioBuffer? {
        guard isRunning, let plan, frameCount > 0, frameCount <= plan.maximumFrameCount else { return nil }
        let start = renderedFrames.load(ordering: .relaxed)
        plan.render(RenderContext(sampleTime: start, frameCount: frameCount))
        renderedFrames.store(start + Int64(frameCount), ordering: .relaxed)
        return plan.output
    }

    /// Renders `frames` frames (at most `buffer.frameCapacity`) into `buffer` from frame 0, in cycles
    /// of at most `maximumFrameCount`, through `renderBlock`. Sets `buffer.frameLength` and returns
    /// the frames rendered. Needs manual rendering mode and a running engine.
    @discardableResult
    public func renderOffline(frames: Int, into buffer: AudioBuffer) throws(AudioEngineError) -> Int {
        guard isInManualRenderingMode else { throw .notInManualRenderingMode }
        guard isRunning, let plan else { throw .engineNotRunning }
        guard buffer.format == outputFormat else { throw .bufferFormatMismatch(buffer: buffer.format, expected: outputFormat) }
        let total = max(0, min(frames, buffer.frameCapacity))
        var done = 0
        while done < total {
            let count = min(plan.maximumFrameCount, total - done)
            guard let block = renderBlock(frameCount: count) else { break }
            buffer.copy(from: block, frameCount: count, toOffset: done)
            done += count
        }
        buffer.frameLength = done
        return done
    }
}
