import Foundation

/// An algorithmic reverb (after AVAudioUnitReverb): the input, summed to mono, passes a pre-delay and four
/// all-pass diffusers into an 8-line feedback delay network with a Householder matrix. Each line's gain gives
/// the preset's decay time exactly at low frequencies; a one-pole low pass per line makes highs die sooner.
/// Two decorrelated sums of the lines feed the left and right outputs.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class ReverbKernel: EffectKernel, @unchecked Sendable {
    /// Base delay-line lengths in milliseconds (size 1), chosen mutually prime-ish for a dense echo pattern.
    private static let lineMilliseconds: [Double] = [31.3, 37.9, 41.7, 47.3, 53.9, 59.1, 67.3, 73.7]
    private static let diffuserMilliseconds: [Double] = [4.77, 3.59, 12.73, 9.30]
    private static let maximumPreDelay = 0.1
    private static let lineCount = 8
    /// Output scale so a full-scale impulse gives a tail of comparable loudness.
    private static let outputGain: Float = 0.3

    private let generation = ParameterGeneration()
    private let presetParameter: IntParameter
    private let wetDryMixParameter: FloatParameter

    // Render-thread state.
    private var sampleRate = 48_000.0
    private var seenGeneration: UInt64 = 0
    private var buffers: [SampleBuffer] = []
    private var lines = UnsafeMutablePointer<DelayLine>.allocate(capacity: 0)
    private var lineGains = SampleBuffer(count: lineCount)
    private var dampingMemories = SampleBuffer(count: lineCount)
    private var diffusers = UnsafeMutablePointer<AllPassFilter>.allocate(capacity: 0)
    private var preDelay: DelayLine?
    private var damping: Float = 0
    private var wetFraction: Float = 0.5

    public init() {
        presetParameter = IntParameter(0, generation: generation)
        wetDryMixParameter = FloatParameter(50, range: 0...100, generation: generation)
    }

    deinit {
        lines.deallocate()
        diffusers.deallocate()
    }

    /// The room. Default `.smallRoom`. May change while playing (the tail carries on in the new room).
    public var preset: ReverbPreset {
        get { ReverbPreset.table[presetParameter.value] }
        set { presetParameter.value = ReverbPreset.table.firstIndex(of: newValue) ?? 0 }
    }
    /// Reverberated level against the dry signal, in percent, 0...100. Default 50.
    public var wetDryMix: Float {
        get { wetDryMixParameter.value }
        set { wetDryMixParameter.value = newValue }
    }

    private func samples(milliseconds: Double) -> Int { Int((milliseconds * sampleRate / 1000).rounded()) }

    public func prepare(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        let lineBuffers = Self.lineMilliseconds.map {
            SampleBuffer(count: samples(milliseconds: $0 * ReverbPreset.maximumSize) + 1)
        }
        let diffuserBuffers = Self.diffuserMilliseconds.map { SampleBuffer(count: samples(milliseconds: $0)) }
        let preDelayBuffer = SampleBuffer(count: Int(Self.maximumPreDelay * sampleRate) + 1)
        buffers = lineBuffers + diffuserBuffers + [preDelayBuffer]
        lines.deallocate()
        lines = .allocate(capacity: Self.lineCount)
        lines.initialize(from: lineBuffers.map { DelayLine(buffer: $0, length: $0.count) }, count: Self.lineCount)
        diffusers.deallocate()
        diffusers = .allocate(capacity: diffuserBuffers.count)
        diffusers.initialize(from: diffuserBuffers.map { AllPassFilter(line: DelayLine(buffer: $0, length: $0.count),
                                                                       gain: 0.6) },
                             count: diffuserBuffers.count)
        preDelay = DelayLine(buffer: preDelayBuffer, length: 1)
        seenGeneration = 0
        reset()
    }

    public func reset() {
        for index in 0..<buffers.count { buffers[index].zero() }
        dampingMemories.zero()
    }

    private func updateParameters() {
        let design = preset.design
        for line in 0..<Self.lineCount {
            let length = samples(milliseconds: Self.lineMilliseconds[line] * design.size)
            lines[line].setLength(length)
            // 60 dB of decay over `decayTime`: each pass through a line of `length` samples loses its share.
            lineGains.pointer[line] = Float(pow(10, -3 * Double(lines[line].length) / (design.decayTime * sampleRate)))
        }
        preDelay?.setLength(max(Int(design.preDelay * sampleRate), 1))
        damping = Float(design.damping)
        wetFraction = wetDryMix / 100
    }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard var preDelay, !channels.isEmpty else { return }
        if generation.changed(since: &seenGeneration) { updateParameters() }
        let inputScale = 1 / Float(channels.count)
        let gains = lineGains.pointer, memories = dampingMemories.pointer
        let lineCount = Self.lineCount
        for frame in 0..<frameCount {
            var input: Float = 0
            for samples in channels { input += samples[frame] }
            var diffused = preDelay.output
            preDelay.push(input * inputScale)
            for index in 0..<4 { diffused = diffusers[index].process(diffused) }

            var left: Float = 0, right: Float = 0, sum: Float = 0
            for line in 0..<lineCount {
                let output = lines[line].output
                left += line & 1 == 0 ? output : -output
                right += line & 2 == 0 ? output : -output
                // Damping: one-pole low pass with unity gain at DC, then the decay gain.
                memories[line] = output + (memories[line] - output) * damping
                sum += memories[line] * gains[line]
            }
            // Householder feedback: x - (2/N)·Σx, orthogonal so the gains alone set the decay.
            let reflection = sum * (2 / Float(lineCount))
            for line in 0..<lineCount {
                let feedback = memories[line] * gains[line] - reflection
                lines[line].push(feedback + (line & 1 == 0 ? diffused : -diffused))
            }
            left *= Self.outputGain
            right *= Self.outputGain
            for index in 0..<channels.count {
                let samples = channels[index]
                let wet = channels.count == 1 ? (left + right) / 2 : (index & 1 == 0 ? left : right)
                samples[frame] = mix(dry: samples[frame], wet: wet, wetFraction: wetFraction)
            }
        }
        self.preDelay = preDelay
        for line in 0..<lineCount where abs(memories[line]) < 1e-20 { memories[line] = 0 }
    }
}
