import Foundation

/// A test-signal source: a sine wave or a single impulse, the same on every channel. Useful for
/// checking a graph and for measuring effects (an impulse gives a node's impulse response).
/// `frequency` and `amplitude` may be changed from any thread while the engine plays.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class ToneGeneratorNode: AudioNode, @unchecked Sendable {
    /// What the generator produces.
    public enum Waveform: Sendable {
        /// A sine wave at `frequency`, starting at phase 0.
        case sine
        /// One sample of `amplitude` at the first frame rendered after prepare or reset, then silence.
        case impulse
    }

    /// The generator's output format.
    public let format: AudioFormat
    /// The generated signal.
    public let waveform: Waveform
    private let frequencyValue: AtomicFloat
    private let amplitudeValue: AtomicFloat
    private var phase: Double = 0
    private var impulsePending = true

    /// A generator of `waveform` at `frequency` Hz and peak `amplitude`, producing `format`
    /// (by default 44 100 Hz mono).
    public init(name: String? = nil, waveform: Waveform = .sine, frequency: Float = 440, amplitude: Float = 0.5,
                format: AudioFormat = AudioFormat(sampleRate: 44_100, channelCount: 1)) {
        self.format = format
        self.waveform = waveform
        frequencyValue = AtomicFloat(frequency)
        amplitudeValue = AtomicFloat(amplitude)
        super.init(name: name)
    }

    /// Sine frequency in Hz.
    public var frequency: Float {
        get { frequencyValue.value }
        set { frequencyValue.value = newValue }
    }

    /// Peak amplitude (1 = full scale).
    public var amplitude: Float {
        get { amplitudeValue.value }
        set { amplitudeValue.value = newValue }
    }

    public override var numberOfInputs: Int { 0 }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { format }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws { reset() }

    public override func reset() {
        phase = 0
        impulsePending = true
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        let first = output[0]
        let amplitude = amplitudeValue.value
        switch waveform {
        case .sine:
            let step = 2 * Double.pi * Double(frequencyValue.value) / format.sampleRate
            var phase = self.phase
            for i in 0..<first.count {
                first[i] = amplitude * Float(sin(phase))
                phase += step
            }
            self.phase = phase.truncatingRemainder(dividingBy: 2 * .pi)
        case .impulse:
            first.update(repeating: 0)
            if impulsePending && first.count > 0 {
                first[0] = amplitude
                impulsePending = false
            }
        }
        for channel in 1..<max(1, output.channelCount) {
            _ = output[channel].update(fromContentsOf: first)
        }
    }
}
