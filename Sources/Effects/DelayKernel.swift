import Foundation

/// A feedback echo (after AVAudioUnitDelay): each channel's delay line is read at `delayTime`, low-pass
/// filtered, fed back by `feedback` and mixed with the dry signal by `wetDryMix`.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class DelayKernel: EffectKernel, @unchecked Sendable {
    /// The longest delay time, in seconds; the delay lines are allocated this long in `prepare`.
    public static let maximumDelayTime: Float = 2

    private let generation = ParameterGeneration()
    private let delayTimeParameter: FloatParameter
    private let feedbackParameter: FloatParameter
    private let lowPassCutoffParameter: FloatParameter
    private let wetDryMixParameter: FloatParameter

    // Render-thread state.
    private var sampleRate = 48_000.0
    private var lines: [SampleBuffer] = []
    private var lineLength = 0
    private var lowPassMemories = SampleBuffer(count: 1)
    private var writeIndex = 0
    private var seenGeneration: UInt64 = 0
    private var targetDelaySamples: Float = 0
    private var currentDelaySamples: Float = -1
    private var feedbackFactor: Float = 0
    private var lowPassCoefficient: Float = 1
    private var wetFraction: Float = 1

    public init() {
        delayTimeParameter = FloatParameter(1, range: 0...Self.maximumDelayTime, generation: generation)
        feedbackParameter = FloatParameter(50, range: -100...100, generation: generation)
        lowPassCutoffParameter = FloatParameter(15_000, range: 10...24_000, generation: generation)
        wetDryMixParameter = FloatParameter(100, range: 0...100, generation: generation)
    }

    /// Time from input to first echo, in seconds, 0...2. Default 1. Changes glide over ~20 ms.
    public var delayTime: Float {
        get { delayTimeParameter.value }
        set { delayTimeParameter.value = newValue }
    }
    /// Fraction of the echo fed back into the line, in percent, −100...100. Default 50.
    public var feedback: Float {
        get { feedbackParameter.value }
        set { feedbackParameter.value = newValue }
    }
    /// Cutoff of the one-pole low pass on the echoes, in Hz, 10...24 000 (capped below Nyquist). Default 15 000.
    public var lowPassCutoff: Float {
        get { lowPassCutoffParameter.value }
        set { lowPassCutoffParameter.value = newValue }
    }
    /// Echo level against the dry signal, in percent, 0 (dry) ... 100 (echo only). Default 100.
    public var wetDryMix: Float {
        get { wetDryMixParameter.value }
        set { wetDryMixParameter.value = newValue }
    }

    public func prepare(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        let length = Int(Double(Self.maximumDelayTime) * sampleRate) + 2
        lines = (0..<channelCount).map { _ in SampleBuffer(count: length) }
        lineLength = length
        lowPassMemories = SampleBuffer(count: channelCount)
        seenGeneration = 0
        reset()
    }

    public func reset() {
        for index in 0..<lines.count { lines[index].zero() }
        lowPassMemories.zero()
        writeIndex = 0
        currentDelaySamples = -1
    }

    private func updateParameters() {
        targetDelaySamples = Float(Double(delayTime) * sampleRate)
        if currentDelaySamples < 0 { currentDelaySamples = targetDelaySamples }
        feedbackFactor = feedback / 100
        let cutoff = min(Double(lowPassCutoff), 0.49 * sampleRate)
        lowPassCoefficient = Float(1 - exp(-2 * Double.pi * cutoff / sampleRate))
        wetFraction = wetDryMix / 100
    }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if generation.changed(since: &seenGeneration) || currentDelaySamples < 0 { updateParameters() }
        // Index loops and stored lengths only: Array's generic helpers may allocate in debug builds.
        let length = lineLength
        if length == 0 { return }
        let glide = Float(1 - exp(-1 / (0.02 * sampleRate)))
        let channelCount = min(channels.count, lines.count)
        var delaySamples = currentDelaySamples
        var write = writeIndex
        for frame in 0..<frameCount {
            delaySamples += (targetDelaySamples - delaySamples) * glide
            // Read position `delaySamples` behind the write head, linearly interpolated.
            var readPosition = Float(write) - delaySamples
            if readPosition < 0 { readPosition += Float(length) }
            let index0 = min(Int(readPosition), length - 1)
            let fraction = readPosition - Float(index0)
            let index1 = index0 + 1 == length ? 0 : index0 + 1
            for channel in 0..<channelCount {
                let line = lines[channel].pointer
                let delayed = line[index0] + (line[index1] - line[index0]) * fraction
                var echo = lowPassMemories.pointer[channel]
                echo += (delayed - echo) * lowPassCoefficient
                lowPassMemories.pointer[channel] = echo
                let input = channels[channel][frame]
                line[write] = input + echo * feedbackFactor
                channels[channel][frame] = mix(dry: input, wet: echo, wetFraction: wetFraction)
            }
            write = write + 1 == length ? 0 : write + 1
        }
        writeIndex = write
        currentDelaySamples = delaySamples
    }
}
