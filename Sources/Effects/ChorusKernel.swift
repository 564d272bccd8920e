import Foundation

/// The shapes of a chorus's delay modulation.
public enum ChorusWaveform: String, Sendable, CaseIterable {
    /// Smooth sweep (FluidSynth's default).
    case sine
    /// Linear sweep: a constant pitch offset up, then down.
    case triangle

    /// `allCases`, made once: the render thread must not build arrays.
    static let table = allCases
}

/// A chorus (as FluidSynth's and the classic ensemble effect): `voices` copies of the input, each read from a
/// delay line whose delay sweeps by `depth` milliseconds at `rate` Hz, their phases spread evenly (the right
/// channel a quarter cycle behind the left, for width), averaged and mixed with the dry signal by `wetDryMix`.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class ChorusKernel: EffectKernel, @unchecked Sendable {
    /// The shortest delay of a voice, in milliseconds: the sweep runs from here to here + `depth`.
    public static let baseDelay: Float = 5
    /// The largest `depth`, in milliseconds.
    public static let maximumDepth: Float = 20

    private let generation = ParameterGeneration()
    private let voicesParameter: FloatParameter
    private let rateParameter: FloatParameter
    private let depthParameter: FloatParameter
    private let wetDryMixParameter: FloatParameter
    private let waveformParameter: IntParameter

    // Render-thread state.
    private var sampleRate = 48_000.0
    private var lines: [SampleBuffer] = []
    private var lineLength = 0
    private var writeIndex = 0
    private var phase: Double = 0
    private var seenGeneration: UInt64 = 0
    private var voiceCount = 3
    private var phaseIncrement: Double = 0
    private var baseSamples: Float = 0
    private var depthSamples: Float = 0
    private var wetFraction: Float = 0.5
    private var currentWaveform = ChorusWaveform.sine

    public init() {
        voicesParameter = FloatParameter(3, range: 1...10, generation: generation)
        rateParameter = FloatParameter(0.3, range: 0.1...5, generation: generation)
        depthParameter = FloatParameter(8, range: 0...Self.maximumDepth, generation: generation)
        wetDryMixParameter = FloatParameter(50, range: 0...100, generation: generation)
        waveformParameter = IntParameter(0, generation: generation)
    }

    /// How many delayed copies are heard, 1...10 (rounded). Default 3.
    public var voices: Float {
        get { voicesParameter.value }
        set { voicesParameter.value = newValue }
    }
    /// How fast the delays sweep, in Hz, 0.1...5. Default 0.3.
    public var rate: Float {
        get { rateParameter.value }
        set { rateParameter.value = newValue }
    }
    /// How far the delays sweep, in milliseconds, 0...20 (0: a fixed doubling delay). Default 8.
    public var depth: Float {
        get { depthParameter.value }
        set { depthParameter.value = newValue }
    }
    /// Chorus level against the dry signal, in percent, 0 (dry) ... 100 (voices only). Default 50.
    public var wetDryMix: Float {
        get { wetDryMixParameter.value }
        set { wetDryMixParameter.value = newValue }
    }
    /// The sweep's shape. Default `.sine`.
    public var waveform: ChorusWaveform {
        get { ChorusWaveform.table[waveformParameter.value] }
        set { waveformParameter.value = ChorusWaveform.table.firstIndex(of: newValue) ?? 0 }
    }

    public func prepare(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        let length = Int(Double(Self.baseDelay + Self.maximumDepth) / 1000 * sampleRate) + 3
        lines = (0..<channelCount).map { _ in SampleBuffer(count: length) }
        lineLength = length
        seenGeneration = 0
        reset()
    }

    public func reset() {
        for index in 0..<lines.count { lines[index].zero() }
        writeIndex = 0
        phase = 0
    }

    private func updateParameters() {
        voiceCount = Int(voices.rounded())
        phaseIncrement = Double(rate) / sampleRate
        baseSamples = Float(Double(Self.baseDelay) / 1000 * sampleRate)
        depthSamples = Float(Double(depth) / 1000 * sampleRate)
        wetFraction = wetDryMix / 100
        currentWaveform = ChorusWaveform.table[waveformParameter.value]
    }

    /// The sweep at `phase` cycles, in 0...1.
    private static func sweep(_ phase: Double, _ waveform: ChorusWaveform) -> Float {
        let cycle = phase - phase.rounded(.down)
        switch waveform {
        case .sine: return Float(0.5 - 0.5 * cos(2 * Double.pi * cycle))
        case .triangle: return Float(cycle < 0.5 ? 2 * cycle : 2 - 2 * cycle)
        }
    }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if generation.changed(since: &seenGeneration) { updateParameters() }
        // Index loops and stored lengths only: Array's generic helpers may allocate in debug builds.
        let length = lineLength
        if length == 0 { return }
        let channelCount = min(channels.count, lines.count)
        let voiceScale = 1 / Float(voiceCount)
        var write = writeIndex
        for frame in 0..<frameCount {
            for channel in 0..<channelCount {
                let line = lines[channel].pointer
                let input = channels[channel][frame]
                line[write] = input
                var wet: Float = 0
                for voice in 0..<voiceCount {
                    let voicePhase = phase + Double(voice) / Double(voiceCount) + (channel == 1 ? 0.25 : 0)
                    let delay = baseSamples + depthSamples * Self.sweep(voicePhase, currentWaveform)
                    // Read `delay` samples behind the write head, linearly interpolated.
                    var readPosition = Float(write) - delay
                    if readPosition < 0 { readPosition += Float(length) }
                    let index0 = min(Int(readPosition), length - 1)
                    let fraction = readPosition - Float(index0)
                    let index1 = index0 + 1 == length ? 0 : index0 + 1
                    wet += line[index0] + (line[index1] - line[index0]) * fraction
                }
                channels[channel][frame] = mix(dry: input, wet: wet * voiceScale, wetFraction: wetFraction)
            }
            write = write + 1 == length ? 0 : write + 1
            phase += phaseIncrement
            if phase >= 1 { phase -= 1 }
        }
        writeIndex = write
    }
}
