import Foundation

/// The waveshaping curves a `DistortionKernel` offers.
public enum DistortionMode: String, Sendable, CaseIterable {
    /// tanh saturation: smooth, warm.
    case softClip = "soft-clip"
    /// Clamping at ±1: harsh, odd harmonics.
    case hardClip = "hard-clip"
    /// Asymmetric tube-like saturation: adds even harmonics.
    case overdrive
    /// Folds peaks above ±1 back down: metallic.
    case foldback
    /// 6-bit quantisation of the driven signal: lo-fi grit.
    case bitCrush = "bit-crush"

    /// `allCases`, made once: reading `allCases` builds a new array each time, which the render thread must not.
    static let table = allCases
}

/// A waveshaping distortion (after AVAudioUnitDistortion): the input is amplified by `preGain`, shaped by the
/// `mode`'s curve and mixed with the dry signal by `wetDryMix`.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class DistortionKernel: EffectKernel, @unchecked Sendable {
    private let generation = ParameterGeneration()
    private let modeParameter: IntParameter
    private let preGainParameter: FloatParameter
    private let wetDryMixParameter: FloatParameter

    private var seenGeneration: UInt64 = 0
    private var currentMode = DistortionMode.softClip
    private var linearPreGain: Float = 1
    private var wetFraction: Float = 0.5

    public init() {
        modeParameter = IntParameter(0, generation: generation)
        preGainParameter = FloatParameter(-6, range: -80...40, generation: generation)
        wetDryMixParameter = FloatParameter(50, range: 0...100, generation: generation)
    }

    /// The shaping curve. Default `.softClip`.
    public var mode: DistortionMode {
        get { DistortionMode.table[modeParameter.value] }
        set { modeParameter.value = DistortionMode.table.firstIndex(of: newValue) ?? 0 }
    }
    /// Drive into the curve, in dB, −80...40. Default −6.
    public var preGain: Float {
        get { preGainParameter.value }
        set { preGainParameter.value = newValue }
    }
    /// Distorted level against the dry signal, in percent, 0...100. Default 50.
    public var wetDryMix: Float {
        get { wetDryMixParameter.value }
        set { wetDryMixParameter.value = newValue }
    }

    public func prepare(sampleRate: Double, channelCount: Int) { seenGeneration = 0 }

    public func reset() {}

    /// The `mode` curve applied to one driven sample.
    static func shape(_ x: Float, mode: DistortionMode) -> Float {
        switch mode {
        case .softClip: return tanhf(x)
        case .hardClip: return min(max(x, -1), 1)
        case .overdrive: return x >= 0 ? tanhf(x) : 0.8 * tanhf(0.6 * x)
        case .foldback:
            // Triangle fold: identity within ±1, mirrored beyond.
            let phase = (x + 1) / 4
            return 4 * abs(phase - floorf(phase + 0.5)) - 1
        case .bitCrush: return (min(max(x, -1), 1) * 32).rounded() / 32
        }
    }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if generation.changed(since: &seenGeneration) {
            currentMode = mode
            linearPreGain = amplitude(decibels: preGain)
            wetFraction = wetDryMix / 100
        }
        for samples in channels {
            for i in 0..<frameCount {
                let dry = samples[i]
                let wet = Self.shape(dry * linearPreGain, mode: currentMode)
                samples[i] = mix(dry: dry, wet: wet, wetFraction: wetFraction)
            }
        }
    }
}
