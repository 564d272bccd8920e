import AudioGraph
import Effects
import Foundation

/// An LV2 plugin with audio in and out as a graph node, attached and connected like any effect:
///
/// ```swift
/// let delay = try LV2EffectNode(uri: "http://drobilla.net/plugins/mda/Delay", values: ["fx_mix": 0.5])
/// engine.attach(delay)
/// engine.connect([sampler, delay, engine.mainMixerNode])
/// delay.setValue(0.8, for: "feedback")   // any thread, while the engine plays
/// ```
///
/// A plugin with as many audio inputs and outputs as the graph's channels runs as one instance; a mono plugin
/// runs as one instance per channel; a mono-in, multi-out plugin gets the channels' average. Control inputs
/// are set lock-free from any thread and taken up at the next render cycle. The plugin's reported latency
/// (its latency port) is `latencyFrames`, which the song renderer compensates as it does the peak limiter's
/// look-ahead: a plugin with a latency port is run on silence at prepare (and after a reset) until the
/// latency it reports settles, so the first audible block already has it, and the port is read again after
/// every run, so a change is seen at once.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone; parameters through atomics.
public final class LV2EffectNode: AudioNode, LatencyReportingNode, @unchecked Sendable {
    /// The plugin and the settings it starts with.
    public let settings: LV2PluginSettings
    /// Frames by which the plugin delays its input, as it last reported (0 without a latency port): settled
    /// at prepare, then read after every run (on the render thread: read it there, or between blocks).
    public private(set) var latencyFrames = 0
    private let hasLatencyPort: Bool

    /// The most runs on silence spent waiting for a plugin's reported latency to settle.
    static let maximumSettlingRuns = 64
    /// Consecutive runs that must report the same latency for it to count as settled.
    static let settledRuns = 3

    /// Where the plugin's scheduled work runs (`LV2WorkerMode`); set it before the engine starts.
    public var workerMode: LV2WorkerMode = .synchronous {
        didSet { for instance in instances { instance.workerMode = workerMode } }
    }

    private var instances: [LV2Instance] = []
    private var mixesToMono = false
    private var monoInput = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    /// Silence in and scratch out for settling, `settlingFrames` each per audio port.
    private var settlingBuffer = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private var settlingFrames = 0
    private var changedValues: [String: Float] = [:]
    private let valuesLock = NSLock()

    /// A node running the plugin `settings` describe.
    public init(settings: LV2PluginSettings, name: String? = nil) {
        self.settings = settings
        hasLatencyPort = settings.plugin.latencyPortIndex != nil
        super.init(name: name ?? settings.plugin.name)
    }

    /// A node running the installed effect `uri` with `values` for its control inputs (by symbol) after
    /// `preset`; throws an `LV2Error` for an unknown plugin, port, value out of range or preset.
    public convenience init(uri: String, values: [String: Float] = [:], preset: String? = nil) throws(LV2Error) {
        let controls = values.sorted { $0.key < $1.key }.map { LV2ControlValue(symbol: $0.key, value: $0.value) }
        self.init(settings: try LV2PluginSettings(uri: uri, values: controls, preset: preset, role: .effect))
    }

    deinit {
        monoInput.deallocate()
        settlingBuffer.deallocate()
    }

    /// Sets control input `symbol` (see `settings.plugin.controlInputs`). Any thread, while the engine plays.
    public func setValue(_ value: Float, for symbol: String) {
        valuesLock.withLock { changedValues[symbol] = value }
        for instance in instances { instance.setValue(value, forSymbol: symbol) }
    }

    /// The value control port `symbol` has (an input's setting; an output's last report), or nil.
    public func value(for symbol: String) -> Float? {
        if let instance = instances.first { return instance.value(forSymbol: symbol) }
        if let changed = valuesLock.withLock({ changedValues[symbol] }) { return changed }
        return settings.values.last { $0.symbol == symbol }?.value
            ?? settings.plugin.ports.first { $0.symbol == symbol }?.defaultValue
    }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        let channels = setup.outputFormats[0].channelCount
        let plugin = settings.plugin
        let inputs = plugin.audioInputs.count, outputs = plugin.audioOutputs.count
        let count: Int
        if inputs == channels && outputs == channels {
            count = 1
            mixesToMono = false
        } else if inputs == 1 && outputs == 1 {
            count = channels
            mixesToMono = false
        } else if inputs == 1 && outputs == channels {
            count = 1
            mixesToMono = true
        } else {
            throw LV2Error.unsupportedChannels(uri: plugin.uri, inputs: inputs, outputs: outputs, channelCount: channels)
        }
        let sampleRate = setup.outputFormats[0].sampleRate
        let changed = valuesLock.withLock { changedValues }
        var made: [LV2Instance] = []
        for _ in 0..<count {
            let instance = try LV2Instance(settings: settings, sampleRate: sampleRate, maximumFrameCount: setup.maximumFrameCount)
            for (symbol, value) in changed { instance.setValue(value, forSymbol: symbol) }
            made.append(instance)
        }
        instances = made
        monoInput.deallocate()
        monoInput = .allocate(capacity: max(setup.maximumFrameCount, 1))
        settlingBuffer.deallocate()
        settlingFrames = max(1, setup.maximumFrameCount)
        settlingBuffer = .allocate(capacity: settlingFrames * (inputs + outputs))
        settleLatency()
        // Settled with the worker synchronous, so work scheduled on the way (a file to load) is in place.
        for instance in made { instance.workerMode = workerMode }
        LV2Log.forwardPendingMessages()
    }

    /// With a latency port: runs each instance on blocks of silence until the latency it reports is the
    /// same `settledRuns` runs in a row (at most `maximumSettlingRuns`), so that the first audible block has
    /// the latency compensated (a plugin may report it, or apply it, only from its second run), and publishes
    /// it. Without one, the instances are left as made (no run before the first block).
    private func settleLatency() {
        guard hasLatencyPort else { return latencyFrames = 0 }
        let inputs = settings.plugin.audioInputs.count, outputs = settings.plugin.audioOutputs.count
        var latency = 0
        for instance in instances {
            settlingBuffer.update(repeating: 0, count: settlingFrames * (inputs + outputs))
            for i in 0..<inputs { instance.connectAudioInput(i, to: settlingBuffer + i * settlingFrames) }
            for o in 0..<outputs { instance.connectAudioOutput(o, to: settlingBuffer + (inputs + o) * settlingFrames) }
            var last = -1, same = 0
            for _ in 0..<Self.maximumSettlingRuns where same < Self.settledRuns {
                for i in 0..<inputs { (settlingBuffer + i * settlingFrames).update(repeating: 0, count: settlingFrames) }
                instance.run(frameCount: settlingFrames)
                let reported = instance.reportedLatency
                same = reported == last ? same + 1 : 1
                last = reported
            }
            latency = max(latency, last)
        }
        latencyFrames = latency
    }

    public override func reset() {
        for instance in instances {
            instance.workerMode = .synchronous
            instance.reset()
        }
        settleLatency()
        for instance in instances { instance.workerMode = workerMode }
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let input = inputs[0], output = outputs[0]
        let frames = context.frameCount
        if mixesToMono, let instance = instances.first {
            let scale = 1 / Float(input.channelCount)
            for frame in 0..<frames { monoInput[frame] = 0 }
            for channel in 0..<input.channelCount {
                let samples = input[channel].baseAddress!
                for frame in 0..<frames { monoInput[frame] += samples[frame] * scale }
            }
            instance.connectAudioInput(0, to: monoInput)
            for channel in 0..<output.channelCount { instance.connectAudioOutput(channel, to: output[channel].baseAddress!) }
            instance.run(frameCount: frames)
        } else if instances.count == 1 {
            let instance = instances[0]
            for channel in 0..<input.channelCount { instance.connectAudioInput(channel, to: input[channel].baseAddress!) }
            for channel in 0..<output.channelCount { instance.connectAudioOutput(channel, to: output[channel].baseAddress!) }
            instance.run(frameCount: frames)
        } else {
            for channel in instances.indices {
                let instance = instances[channel]
                instance.connectAudioInput(0, to: input[channel].baseAddress!)
                instance.connectAudioOutput(0, to: output[channel].baseAddress!)
                instance.run(frameCount: frames)
            }
        }
        // (Indexed, not `instances.first`: that allocates in a debug build.)
        if hasLatencyPort, instances.count > 0 { latencyFrames = instances[0].reportedLatency }
    }
}
