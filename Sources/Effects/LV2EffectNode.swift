import AudioGraph
import Foundation
import LV2

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
/// (its latency port, read after a run of silence at prepare) is `latencyFrames`, which the song renderer
/// compensates as it does the peak limiter's look-ahead.
public final class LV2EffectNode: AudioNode, LatencyReportingNode, @unchecked Sendable {
    /// The plugin and the settings it starts with.
    public let settings: LV2PluginSettings
    /// Frames by which the plugin delays its input, as it reported at prepare (0 without a latency port).
    public private(set) var latencyFrames = 0

    /// Where the plugin's scheduled work runs (`LV2WorkerMode`); set it before the engine starts.
    public var workerMode: LV2WorkerMode = .synchronous {
        didSet { for instance in instances { instance.workerMode = workerMode } }
    }

    private var instances: [LV2Instance] = []
    private var mixesToMono = false
    private var monoInput = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private var changedValues: [String: Float] = [:]
    private let valuesLock = NSLock()

    /// A node running the plugin `settings` describe.
    public init(settings: LV2PluginSettings, name: String? = nil) {
        self.settings = settings
        super.init(name: name ?? settings.plugin.name)
    }

    /// A node running the installed effect `uri` with `values` for its control inputs (by symbol) after
    /// `preset`; throws an `LV2Error` for an unknown plugin, port, value out of range or preset.
    public convenience init(uri: String, values: [String: Float] = [:], preset: String? = nil) throws(LV2Error) {
        let controls = values.sorted { $0.key < $1.key }.map { LV2ControlValue(symbol: $0.key, value: $0.value) }
        self.init(settings: try LV2PluginSettings(uri: uri, values: controls, preset: preset, role: .effect))
    }

    deinit { monoInput.deallocate() }

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
        func make() throws(LV2Error) -> LV2Instance {
            let instance = try LV2Instance(settings: settings, sampleRate: sampleRate, maximumFrameCount: setup.maximumFrameCount)
            for (symbol, value) in changed { instance.setValue(value, forSymbol: symbol) }
            instance.workerMode = workerMode
            return instance
        }
        var made: [LV2Instance] = []
        for _ in 0..<count { made.append(try make()) }
        instances = made
        monoInput.deallocate()
        monoInput = .allocate(capacity: max(setup.maximumFrameCount, 1))
        latencyFrames = plugin.latencyPortIndex == nil ? 0 : try Self.probeLatency(make(), setup: setup, inputs: inputs, outputs: outputs)
        LV2Log.forwardPendingMessages()
    }

    /// Runs a separate instance on a block of silence and reads the latency it reports.
    private static func probeLatency(_ probe: LV2Instance, setup: AudioNodeRenderSetup, inputs: Int, outputs: Int) -> Int {
        let frames = max(1, min(setup.maximumFrameCount, 4096))
        let silence = UnsafeMutablePointer<Float>.allocate(capacity: frames * (inputs + outputs))
        defer { silence.deallocate() }
        silence.initialize(repeating: 0, count: frames * (inputs + outputs))
        for i in 0..<inputs { probe.connectAudioInput(i, to: silence + i * frames) }
        for o in 0..<outputs { probe.connectAudioOutput(o, to: silence + (inputs + o) * frames) }
        probe.run(frameCount: frames)
        return probe.reportedLatency
    }

    public override func reset() {
        for instance in instances { instance.reset() }
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
    }
}
