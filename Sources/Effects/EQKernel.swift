import Foundation

/// One band of an `EQKernel`: a biquad whose settings may change while audio plays.
public final class EQBand: Sendable {
    private let type: IntParameter
    private let frequencyParameter: FloatParameter
    private let bandwidthParameter: FloatParameter
    private let gainParameter: FloatParameter
    private let bypassParameter: IntParameter

    init(generation: ParameterGeneration) {
        type = IntParameter(EQFilterType.parametric.rawValue, generation: generation)
        frequencyParameter = FloatParameter(1000, range: 10...24_000, generation: generation)
        bandwidthParameter = FloatParameter(1, range: 0.05...5, generation: generation)
        gainParameter = FloatParameter(0, range: -96...24, generation: generation)
        bypassParameter = IntParameter(0, generation: generation)
    }

    /// The response shape. Default `.parametric`.
    public var filterType: EQFilterType {
        get { EQFilterType(rawValue: type.value) ?? .parametric }
        set { type.value = newValue.rawValue }
    }
    /// Centre or corner frequency in Hz, 10...24 000 (kept below Nyquist when filtering). Default 1000.
    public var frequency: Float {
        get { frequencyParameter.value }
        set { frequencyParameter.value = newValue }
    }
    /// Width in octaves, 0.05...5 (parametric, band pass/stop, resonant types). Default 1.
    public var bandwidth: Float {
        get { bandwidthParameter.value }
        set { bandwidthParameter.value = newValue }
    }
    /// Boost or cut in dB, −96...24 (parametric and shelves). Default 0.
    public var gain: Float {
        get { gainParameter.value }
        set { gainParameter.value = newValue }
    }
    /// When true the band passes audio unchanged. Default false.
    public var bypass: Bool {
        get { bypassParameter.value != 0 }
        set { bypassParameter.value = newValue ? 1 : 0 }
    }

    /// The coefficients these settings give at `sampleRate`.
    public func coefficients(sampleRate: Double) -> BiquadCoefficients {
        if bypass { return .identity }
        return BiquadCoefficients(type: filterType, frequency: Double(frequency), bandwidth: Double(bandwidth),
                                  gain: Double(gain), sampleRate: sampleRate)
    }
}

/// A multi-band equaliser (after AVAudioUnitEQ): a cascade of cookbook biquads and a global gain.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class EQKernel: EffectKernel, @unchecked Sendable {
    /// The bands, applied in order. Their number is fixed at creation.
    public let bands: [EQBand]
    private let generation: ParameterGeneration
    private let globalGainParameter: FloatParameter

    // Render-thread state, sized in `prepare`.
    private var sampleRate = 48_000.0
    private var channelCount = 0
    private var seenGeneration: UInt64 = 0
    private var coefficients: UnsafeMutablePointer<BiquadCoefficients>
    private var states: UnsafeMutablePointer<BiquadState>
    private var linearGlobalGain: Float = 1

    /// An EQ with `bandCount` bands (1...16), each a flat parametric band at 1 kHz until configured.
    public init(bandCount: Int) {
        let count = min(max(bandCount, 1), 16)
        let generation = ParameterGeneration()
        self.generation = generation
        bands = (0..<count).map { _ in EQBand(generation: generation) }
        globalGainParameter = FloatParameter(0, range: -96...24, generation: generation)
        coefficients = .allocate(capacity: count)
        coefficients.initialize(repeating: .identity, count: count)
        states = .allocate(capacity: 0)
    }

    deinit {
        coefficients.deallocate()
        states.deallocate()
    }

    /// Gain in dB applied after all bands, −96...24. Default 0.
    public var globalGain: Float {
        get { globalGainParameter.value }
        set { globalGainParameter.value = newValue }
    }

    public func prepare(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        states.deallocate()
        states = .allocate(capacity: bands.count * channelCount)
        states.initialize(repeating: BiquadState(), count: bands.count * channelCount)
        seenGeneration = 0
    }

    public func reset() {
        states.update(repeating: BiquadState(), count: bands.count * channelCount)
    }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if generation.changed(since: &seenGeneration) {
            for index in 0..<bands.count {
                coefficients[index] = bands[index].coefficients(sampleRate: sampleRate)
            }
            linearGlobalGain = amplitude(decibels: globalGain)
        }
        let channelsToProcess = min(channels.count, channelCount)
        for band in 0..<bands.count where coefficients[band] != .identity {
            for channel in 0..<channelsToProcess {
                states[band * channelCount + channel].process(channels[channel], count: frameCount,
                                                              coefficients[band])
            }
        }
        if linearGlobalGain != 1 {
            for channel in 0..<channelsToProcess {
                let samples = channels[channel]
                for i in 0..<frameCount { samples[i] *= linearGlobalGain }
            }
        }
    }
}
