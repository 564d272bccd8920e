import Foundation

/// Sums any number of inputs into one output, each input with its own volume and pan, then applies
/// `outputVolume`. Inputs must have the mixer's sample rate and either its channel count or one
/// channel. Parameters may be changed from any thread while the engine plays; they apply from the
/// next render cycle.
///
/// Pan (−1 left … 0 centre … +1 right): a mono input into a stereo (or wider) mixer is placed with
/// the equal-power law (each side −3 dB at centre, so loudness stays even across the field); a
/// stereo input into a stereo mixer is balanced (unity at centre, the opposite side turned down along
/// the same cosine curve). Other layouts ignore pan.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class MixerNode: AudioNode, @unchecked Sendable {
    /// Most inputs one mixer takes.
    public static let maximumInputCount = 1024

    private let fixedFormat: AudioFormat?
    private var parametersByBus: [Int: InputParameters] = [:]
    private var preparedParameters: [InputParameters] = []
    private let outputGain = AtomicFloat(1)

    /// A mixer producing `format`, or, when nil, whatever its engine's output node takes.
    public init(name: String? = nil, format: AudioFormat? = nil) {
        fixedFormat = format
        super.init(name: name)
    }

    /// The format this mixer produces.
    public var format: AudioFormat { fixedFormat ?? engine?.outputFormat ?? .standard }

    /// Gain applied to the sum, 1 = unity.
    public var outputVolume: Float {
        get { outputGain.value }
        set { outputGain.value = newValue }
    }

    /// Sets the gain of input `bus` (1 = unity, default).
    public func setVolume(_ volume: Float, forInput bus: Int) { parameters(forInput: bus).volume.value = volume }
    /// The gain of input `bus`.
    public func volume(forInput bus: Int) -> Float { parametersByBus[bus]?.volume.value ?? 1 }
    /// Sets the pan of input `bus`, clamped to −1…+1 (0 = centre, default).
    public func setPan(_ pan: Float, forInput bus: Int) { parameters(forInput: bus).pan.value = min(1, max(-1, pan)) }
    /// The pan of input `bus`.
    public func pan(forInput bus: Int) -> Float { parametersByBus[bus]?.pan.value ?? 0 }

    private func parameters(forInput bus: Int) -> InputParameters {
        if let existing = parametersByBus[bus] { return existing }
        let made = InputParameters()
        parametersByBus[bus] = made
        return made
    }

    public override var numberOfInputs: Int { Self.maximumInputCount }
    public override var allowsUnconnectedInputs: Bool { true }

    public override func acceptsInputFormat(_ input: AudioFormat, onBus bus: Int) -> Bool {
        input.sampleRate == format.sampleRate && (input.channelCount == 1 || input.channelCount == format.channelCount)
    }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { format }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        preparedParameters = setup.connectedInputBuses.map(parameters(forInput:))
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        output.clear()
        let master = outputGain.value
        for index in inputs.indices {
            let input = inputs[index]
            let parameters = preparedParameters[index]
            let volume = parameters.volume.value * master
            let pan = parameters.pan.value
            if input.channelCount == 1 && output.channelCount >= 2 {
                let angle = (pan + 1) * (.pi / 4)
                Self.add(input[0], times: volume * cos(angle), to: output[0])
                Self.add(input[0], times: volume * sin(angle), to: output[1])
            } else if input.channelCount == 1 {
                for channel in 0..<output.channelCount { Self.add(input[0], times: volume, to: output[channel]) }
            } else if input.channelCount == 2 {
                Self.add(input[0], times: volume * (pan > 0 ? cos(pan * .pi / 2) : 1), to: output[0])
                Self.add(input[1], times: volume * (pan < 0 ? cos(-pan * .pi / 2) : 1), to: output[1])
            } else {
                for channel in 0..<output.channelCount { Self.add(input[channel], times: volume, to: output[channel]) }
            }
        }
    }

    private static func add(_ source: UnsafeMutableBufferPointer<Float>, times gain: Float,
                            to destination: UnsafeMutableBufferPointer<Float>) {
        guard gain != 0 else { return }
        for i in 0..<destination.count { destination[i] += source[i] * gain }
    }

    /// Volume and pan of one input, shared between the setting thread and the render thread.
    private final class InputParameters: Sendable {
        let volume = AtomicFloat(1)
        let pan = AtomicFloat(0)
    }
}
