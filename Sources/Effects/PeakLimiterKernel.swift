import Foundation

/// A look-ahead brick-wall limiter: the output never exceeds `ceiling`.
///
/// The gain each frame needs (`ceiling / peak`, linked across channels) goes through a running minimum over
/// the look-ahead window, an instant-attack/`releaseTime` release, and a moving average over the same window,
/// while the audio is delayed by the look-ahead. Every value averaged for a frame is at most the gain that
/// frame needs, so the smoothed gain already keeps it under the ceiling; the output is finally clamped to the
/// ceiling so rounding cannot break the guarantee. Latency: `attackTime` seconds.
// Why unchecked: the EffectKernel contract: parameters in atomics (any thread), DSP state the render thread's alone.
public final class PeakLimiterKernel: EffectKernel, @unchecked Sendable {
    /// The longest look-ahead, in seconds.
    public static let maximumAttackTime: Float = 0.03

    private let generation = ParameterGeneration()
    private let ceilingParameter: FloatParameter
    private let attackTimeParameter: FloatParameter
    private let releaseTimeParameter: FloatParameter
    private let preGainParameter: FloatParameter

    // Render-thread state.
    private var sampleRate = 48_000.0
    private var seenGeneration: UInt64 = 0
    private var delayLines: [SampleBuffer] = []
    private var capacity = 1                      // ring length of every buffer: maximum window
    private var window = 1                        // look-ahead + 1 frames
    private var position = 0                      // ring write index
    private var frameIndex = 0                    // frames since reset (for the minimum queue)
    private var minimumQueueValues = SampleBuffer(count: 1)
    private var minimumQueueFrames = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    private var queueHead = 0, queueCount = 0
    private var averageRing = SampleBuffer(count: 1)
    private var averageSum = 0.0
    private var releasedGain: Float = 1
    private var linearCeiling: Float = 1
    private var linearPreGain: Float = 1
    private var releaseCoefficient: Float = 0

    public init() {
        ceilingParameter = FloatParameter(-1, range: -40...0, generation: generation)
        attackTimeParameter = FloatParameter(0.005, range: 0.001...Self.maximumAttackTime, generation: generation)
        releaseTimeParameter = FloatParameter(0.05, range: 0.001...2, generation: generation)
        preGainParameter = FloatParameter(0, range: -40...40, generation: generation)
    }

    deinit { minimumQueueFrames.deallocate() }

    /// The highest output level, in dBFS, −40...0. Default −1.
    public var ceiling: Float {
        get { ceilingParameter.value }
        set { ceilingParameter.value = newValue }
    }
    /// Look-ahead (and latency), in seconds, 0.001...0.03. Default 0.005. Changing it while playing restarts the
    /// look-ahead: a gap of `attackTime` seconds.
    public var attackTime: Float {
        get { attackTimeParameter.value }
        set { attackTimeParameter.value = newValue }
    }
    /// Time constant of the gain's recovery, in seconds, 0.001...2. Default 0.05.
    public var releaseTime: Float {
        get { releaseTimeParameter.value }
        set { releaseTimeParameter.value = newValue }
    }
    /// Gain applied before limiting, in dB, −40...40. Default 0.
    public var preGain: Float {
        get { preGainParameter.value }
        set { preGainParameter.value = newValue }
    }

    /// The delay the limiter adds, in frames, at its current settings.
    public var latencyFrames: Int { window - 1 }

    public func prepare(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        capacity = Int(Double(Self.maximumAttackTime) * sampleRate) + 2
        delayLines = (0..<channelCount).map { _ in SampleBuffer(count: capacity) }
        minimumQueueValues = SampleBuffer(count: capacity)
        minimumQueueFrames.deallocate()
        minimumQueueFrames = .allocate(capacity: capacity)
        averageRing = SampleBuffer(count: capacity)
        seenGeneration = 0
        updateParameters()
        reset()
    }

    public func reset() {
        for index in 0..<delayLines.count { delayLines[index].zero() }
        position = 0
        frameIndex = 0
        queueHead = 0
        queueCount = 0
        // The average starts full of unity gain, matching the silent delay line.
        averageRing.pointer.update(repeating: 1, count: averageRing.count)
        averageSum = Double(window)
        releasedGain = 1
    }

    private func updateParameters() {
        linearCeiling = amplitude(decibels: ceiling)
        linearPreGain = amplitude(decibels: preGain)
        releaseCoefficient = Float(exp(-1 / (Double(releaseTime) * sampleRate)))
        let newWindow = min(max(Int((Double(attackTime) * sampleRate).rounded()), 1), capacity - 1) + 1
        if newWindow != window {
            window = newWindow
            reset()
        }
    }

    /// Pushes frame `frameIndex`'s needed gain and returns the minimum over the last `window` frames.
    private func pushMinimum(_ gain: Float) -> Float {
        let values = minimumQueueValues.pointer
        while queueCount > 0 {
            let back = (queueHead + queueCount - 1) % capacity
            if values[back] < gain { break }
            queueCount -= 1
        }
        let slot = (queueHead + queueCount) % capacity
        values[slot] = gain
        minimumQueueFrames[slot] = frameIndex
        queueCount += 1
        while minimumQueueFrames[queueHead] <= frameIndex - window {
            queueHead = (queueHead + 1) % capacity
            queueCount -= 1
        }
        return values[queueHead]
    }

    public func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if generation.changed(since: &seenGeneration) { updateParameters() }
        let channelCount = min(channels.count, delayLines.count)
        let delay = window - 1
        for frame in 0..<frameCount {
            // The gain this incoming frame needs.
            var peak: Float = 0
            for channel in 0..<channelCount {
                let sample = channels[channel][frame] * linearPreGain
                delayLines[channel].pointer[position] = sample
                peak = max(peak, abs(sample))
            }
            let needed = peak > linearCeiling ? linearCeiling / peak : 1
            let held = pushMinimum(needed)
            releasedGain = held < releasedGain ? held : held + (releasedGain - held) * releaseCoefficient
            // Moving average of the released gain over the window.
            let averageSlot = frameIndex % window
            averageSum += Double(releasedGain) - Double(averageRing.pointer[averageSlot])
            averageRing.pointer[averageSlot] = releasedGain
            let gain = Float(averageSum / Double(window))
            // Emit the frame that entered `delay` frames ago.
            var readPosition = position - delay
            if readPosition < 0 { readPosition += capacity }
            for channel in 0..<channelCount {
                let output = delayLines[channel].pointer[readPosition] * gain
                channels[channel][frame] = min(max(output, -linearCeiling), linearCeiling)
            }
            position = position + 1 == capacity ? 0 : position + 1
            frameIndex += 1
        }
    }
}
