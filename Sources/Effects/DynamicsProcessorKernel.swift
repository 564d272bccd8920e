import Foundation

/// A feed-forward compressor: a peak envelope follower (linked across channels, with `attackTime` and
/// `releaseTime`) drives a gain computer that reduces everything above `threshold` by `ratio`, with a soft
/// knee of `kneeWidth` dB, then adds `makeUpGain`.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class DynamicsProcessorKernel: EffectKernel, @unchecked Sendable {
    private let generation = ParameterGeneration()
    private let thresholdParameter: FloatParameter
    private let ratioParameter: FloatParameter
    private let kneeWidthParameter: FloatParameter
    private let attackTimeParameter: FloatParameter
    private let releaseTimeParameter: FloatParameter
    private let makeUpGainParameter: FloatParameter

    private var sampleRate = 48_000.0
    private var seenGeneration: UInt64 = 0
    private var envelope: Float = 0
    private var attackCoefficient: Float = 0
    private var releaseCoefficient: Float = 0
    private var thresholdDecibels: Float = 0
    private var ratioValue: Float = 1
    private var knee: Float = 0
    private var makeUpDecibels: Float = 0
    private var kneeStart: Float = 0

    public init() {
        thresholdParameter = FloatParameter(-20, range: -60...0, generation: generation)
        ratioParameter = FloatParameter(4, range: 1...50, generation: generation)
        kneeWidthParameter = FloatParameter(0, range: 0...24, generation: generation)
        attackTimeParameter = FloatParameter(0.005, range: 0.0001...0.5, generation: generation)
        releaseTimeParameter = FloatParameter(0.1, range: 0.005...5, generation: generation)
        makeUpGainParameter = FloatParameter(0, range: -40...40, generation: generation)
    }

    /// Level above which gain is reduced, in dBFS, −60...0. Default −20.
    public var threshold: Float {
        get { thresholdParameter.value }
        set { thresholdParameter.value = newValue }
    }
    /// Input dB above threshold per output dB above threshold, 1...50. Default 4.
    public var ratio: Float {
        get { ratioParameter.value }
        set { ratioParameter.value = newValue }
    }
    /// Width of the soft knee around the threshold, in dB, 0 (hard) ... 24. Default 0.
    public var kneeWidth: Float {
        get { kneeWidthParameter.value }
        set { kneeWidthParameter.value = newValue }
    }
    /// Time constant of the envelope's rise, in seconds, 0.0001...0.5. Default 0.005.
    public var attackTime: Float {
        get { attackTimeParameter.value }
        set { attackTimeParameter.value = newValue }
    }
    /// Time constant of the envelope's fall, in seconds, 0.005...5. Default 0.1.
    public var releaseTime: Float {
        get { releaseTimeParameter.value }
        set { releaseTimeParameter.value = newValue }
    }
    /// Gain added after compression, in dB, −40...40. Default 0.
    public var makeUpGain: Float {
        get { makeUpGainParameter.value }
        set { makeUpGainParameter.value = newValue }
    }

    /// The static curve: the gain change in dB for an input level of `level` dBFS, make-up included.
    public static func gainChange(level: Float, threshold: Float, ratio: Float, kneeWidth: Float,
                                  makeUpGain: Float) -> Float {
        let over = level - threshold
        let slope = 1 / ratio - 1
        if 2 * over <= -kneeWidth { return makeUpGain }
        if 2 * abs(over) < kneeWidth {
            let x = over + kneeWidth / 2
            return makeUpGain + slope * x * x / (2 * kneeWidth)
        }
        return makeUpGain + slope * over
    }

    public func prepare(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        seenGeneration = 0
        reset()
    }

    public func reset() { envelope = 0 }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if generation.changed(since: &seenGeneration) {
            attackCoefficient = Float(exp(-1 / (Double(attackTime) * sampleRate)))
            releaseCoefficient = Float(exp(-1 / (Double(releaseTime) * sampleRate)))
            thresholdDecibels = threshold
            ratioValue = ratio
            knee = kneeWidth
            makeUpDecibels = makeUpGain
            kneeStart = amplitude(decibels: threshold - kneeWidth / 2)
        }
        let makeUpFactor = amplitude(decibels: makeUpDecibels)
        var envelope = self.envelope
        for frame in 0..<frameCount {
            var peak: Float = 0
            for samples in channels { peak = max(peak, abs(samples[frame])) }
            let coefficient = peak > envelope ? attackCoefficient : releaseCoefficient
            envelope = peak + (envelope - peak) * coefficient
            // Below the knee the gain is just the make-up: skip the logarithms.
            var gain = makeUpFactor
            if envelope > kneeStart {
                let change = Self.gainChange(level: decibels(amplitude: envelope), threshold: thresholdDecibels,
                                             ratio: ratioValue, kneeWidth: knee, makeUpGain: makeUpDecibels)
                gain = amplitude(decibels: change)
            }
            for samples in channels { samples[frame] *= gain }
        }
        self.envelope = envelope < 1e-20 ? 0 : envelope
    }
}
