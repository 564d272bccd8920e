import AudioGraph

/// An audio-graph node that runs an `EffectKernel`: each cycle it copies its input to its output and has the
/// kernel process the output in place. Output format = input format.
///
/// The kernel's parameters read and write straight through the node (`reverb.wetDryMix = 30`), from any
/// thread, while the engine plays. Use the named aliases (`ReverbNode`, `EQNode`, …) and their initialisers.
@dynamicMemberLookup
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class EffectNode<Kernel: EffectKernel>: AudioNode, @unchecked Sendable {
    /// The DSP this node runs.
    public let kernel: Kernel
    private var channelPointers = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: 0)

    /// A node running `kernel`, called `name`.
    public init(kernel: Kernel, name: String) {
        self.kernel = kernel
        super.init(name: name)
    }

    deinit { channelPointers.deallocate() }

    /// The kernel's parameter at `keyPath`.
    public subscript<Value>(dynamicMember keyPath: ReferenceWritableKeyPath<Kernel, Value>) -> Value {
        get { kernel[keyPath: keyPath] }
        set { kernel[keyPath: keyPath] = newValue }
    }

    /// The kernel's read-only property at `keyPath`.
    public subscript<Value>(dynamicMember keyPath: KeyPath<Kernel, Value>) -> Value {
        kernel[keyPath: keyPath]
    }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        let format = setup.outputFormats[0]
        kernel.prepare(sampleRate: format.sampleRate, channelCount: format.channelCount)
        channelPointers.deallocate()
        channelPointers = .allocate(capacity: format.channelCount)
    }

    public override func reset() { kernel.reset() }

    /// How many frames this node delays its input (the kernel's look-ahead; 0 for most effects).
    public var latencyFrames: Int { kernel.latencyFrames }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        output.copy(from: inputs[0], frameCount: context.frameCount)
        for channel in 0..<min(output.channelCount, channelPointers.count) {
            channelPointers[channel] = output[channel].baseAddress!
        }
        kernel.process(channelPointers, frameCount: context.frameCount)
    }
}

/// A node whose output lags its input by a fixed number of frames, so the song can be rendered that
/// much earlier (`SongRenderer` does) and keep its timing.
public protocol LatencyReportingNode: AudioNode {
    /// Frames by which the output lags the input.
    var latencyFrames: Int { get }
}

extension EffectNode: LatencyReportingNode {}

extension Array where Element == AudioNode {
    /// The frames by which a chain of these nodes delays its input: the sum of their latencies.
    public var latencyFrames: Int { reduce(0) { $0 + (($1 as? LatencyReportingNode)?.latencyFrames ?? 0) } }
}

/// Reverb node (after AVAudioUnitReverb): `preset`, `wetDryMix`.
public typealias ReverbNode = EffectNode<ReverbKernel>
/// Equaliser node (after AVAudioUnitEQ): `bands[i].filterType/frequency/bandwidth/gain/bypass`, `globalGain`.
public typealias EQNode = EffectNode<EQKernel>
/// Echo node (after AVAudioUnitDelay): `delayTime`, `feedback`, `lowPassCutoff`, `wetDryMix`.
public typealias DelayNode = EffectNode<DelayKernel>
/// Chorus node: `voices`, `rate`, `depth`, `wetDryMix`, `waveform`.
public typealias ChorusNode = EffectNode<ChorusKernel>
/// Distortion node (after AVAudioUnitDistortion): `mode`, `preGain`, `wetDryMix`.
public typealias DistortionNode = EffectNode<DistortionKernel>
/// Compressor node: `threshold`, `ratio`, `kneeWidth`, `attackTime`, `releaseTime`, `makeUpGain`.
public typealias DynamicsProcessorNode = EffectNode<DynamicsProcessorKernel>
/// Brick-wall look-ahead limiter node: `ceiling`, `attackTime`, `releaseTime`, `preGain`.
public typealias PeakLimiterNode = EffectNode<PeakLimiterKernel>

extension EffectNode where Kernel == ReverbKernel {
    /// A reverb in `preset` at `wetDryMix` percent.
    public convenience init(preset: ReverbPreset = .mediumHall, wetDryMix: Float = 50, name: String = "Reverb") {
        self.init(kernel: ReverbKernel(), name: name)
        kernel.preset = preset
        kernel.wetDryMix = wetDryMix
    }
}

extension EffectNode where Kernel == EQKernel {
    /// An equaliser with `numberOfBands` flat bands (1...16).
    public convenience init(numberOfBands: Int, name: String = "EQ") {
        self.init(kernel: EQKernel(bandCount: numberOfBands), name: name)
    }
}

extension EffectNode where Kernel == ChorusKernel {
    /// A chorus with FluidSynth's defaults (3 voices, 0.3 Hz, 8 ms, sine) at 50 % wet.
    public convenience init(name: String = "Chorus") { self.init(kernel: ChorusKernel(), name: name) }
}

extension EffectNode where Kernel == DelayKernel {
    /// An echo with the AVAudioUnitDelay defaults (1 s, 50 % feedback, 15 kHz, 100 % wet).
    public convenience init(name: String = "Delay") { self.init(kernel: DelayKernel(), name: name) }
}

extension EffectNode where Kernel == DistortionKernel {
    /// A distortion in `mode`.
    public convenience init(mode: DistortionMode = .softClip, name: String = "Distortion") {
        self.init(kernel: DistortionKernel(), name: name)
        kernel.mode = mode
    }
}

extension EffectNode where Kernel == DynamicsProcessorKernel {
    /// A compressor with default settings (−20 dB, 4:1, 5 ms, 100 ms, no make-up).
    public convenience init(name: String = "Compressor") { self.init(kernel: DynamicsProcessorKernel(), name: name) }
}

extension EffectNode where Kernel == PeakLimiterKernel {
    /// A limiter with default settings (−1 dBFS ceiling, 5 ms look-ahead, 50 ms release).
    public convenience init(name: String = "Limiter") { self.init(kernel: PeakLimiterKernel(), name: name) }
}
