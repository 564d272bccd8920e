import Foundation

/// A read-only tap that meters the audio at its point, per channel, for a status line or a level
/// display: a falling peak, a held peak and a running RMS level, in dBFS (0 = full scale).
///
/// Ballistics: the peak jumps up at once and falls at `peakFallRate` dB per second; the held peak
/// stays at the loudest recent peak for `holdDuration` seconds, then falls at the same rate; the RMS
/// level is the root of an exponential average of the squared samples over `rmsWindow` seconds.
/// Levels change once per render cycle. Another thread reads them with `level(ofChannel:)` at any
/// rate without locks (each value is an atomic); don't read while the engine is preparing.
// Why unchecked: each level is an atomic the render thread writes; the rest is made at prepare, with the engine stopped.
public final class LevelMeterTap: ProcessingTap, @unchecked Sendable {
    /// One channel's levels in dBFS; `-infinity` for digital silence.
    public struct Level: Sendable, Equatable {
        /// The falling peak level.
        public let peak: Float
        /// The loudest peak of the last `holdDuration` seconds (then falling).
        public let heldPeak: Float
        /// The running RMS level.
        public let rms: Float
    }

    /// dB per second the peak and held peak fall.
    public let peakFallRate: Float
    /// Seconds the held peak stays before it falls.
    public let holdDuration: Double
    /// Time constant of the RMS average, in seconds.
    public let rmsWindow: Double

    /// Render-thread state of one channel, linear amplitudes.
    private struct ChannelState {
        var peak: Float = 0
        var heldPeak: Float = 0
        var holdFramesLeft = 0
        var meanSquare: Float = 0
    }

    private var states = UnsafeMutableBufferPointer<ChannelState>(start: nil, count: 0)
    private var published: [(peak: AtomicFloat, heldPeak: AtomicFloat, rms: AtomicFloat)] = []
    private var sampleRate: Double = 44_100

    /// A meter with the given ballistics (defaults suit a terminal status line redrawn a few
    /// times a second).
    public init(peakFallRate: Float = 20, holdDuration: Double = 1.5, rmsWindow: Double = 0.3) {
        precondition(peakFallRate >= 0 && holdDuration >= 0 && rmsWindow > 0, "meter ballistics must be positive")
        self.peakFallRate = peakFallRate
        self.holdDuration = holdDuration
        self.rmsWindow = rmsWindow
    }

    deinit { states.deallocate() }

    /// Channels metered: the tapped format's channel count (0 before the engine prepares).
    public var channelCount: Int { published.count }

    /// The levels of `channel` now; silence for a channel the meter does not have.
    public func level(ofChannel channel: Int) -> Level {
        guard published.indices.contains(channel) else { return Level(peak: -.infinity, heldPeak: -.infinity, rms: -.infinity) }
        let values = published[channel]
        return Level(peak: Self.decibels(values.peak.value), heldPeak: Self.decibels(values.heldPeak.value),
                     rms: Self.decibels(values.rms.value))
    }

    /// `amplitude` (linear, 1 = full scale) in dBFS.
    public static func decibels(_ amplitude: Float) -> Float {
        amplitude > 0 ? 20 * log10(amplitude) : -.infinity
    }

    public func prepare(format: AudioFormat, maximumFrameCount: Int) throws {
        sampleRate = format.sampleRate
        guard format.channelCount != states.count else { return }
        states.deallocate()
        states = .allocate(capacity: format.channelCount)
        states.initialize(repeating: ChannelState())
        published = (0..<format.channelCount).map { _ in (AtomicFloat(0), AtomicFloat(0), AtomicFloat(0)) }
    }

    public func process(_ buffer: AudioBuffer, context: RenderContext) {
        let frames = buffer.frameLength
        guard frames > 0 else { return }
        let seconds = Double(frames) / sampleRate
        let fall = Float(pow(10, -Double(peakFallRate) * seconds / 20))
        let keep = Float(exp(-seconds / rmsWindow))
        let holdFrames = Int(holdDuration * sampleRate)
        for channel in 0..<min(buffer.channelCount, states.count) {
            let samples = buffer[channel]
            var blockPeak: Float = 0
            var sumOfSquares: Float = 0
            for i in 0..<frames {
                blockPeak = max(blockPeak, abs(samples[i]))
                sumOfSquares += samples[i] * samples[i]
            }
            var state = states[channel]
            state.peak = max(state.peak * fall, blockPeak)
            if blockPeak >= state.heldPeak {
                state.heldPeak = blockPeak
                state.holdFramesLeft = holdFrames
            } else if state.holdFramesLeft > 0 {
                state.holdFramesLeft -= frames
            } else {
                state.heldPeak = max(state.heldPeak * fall, state.peak)
            }
            state.meanSquare = state.meanSquare * keep + sumOfSquares / Float(frames) * (1 - keep)
            states[channel] = state
            published[channel].peak.value = state.peak
            published[channel].heldPeak.value = state.heldPeak
            published[channel].rms.value = state.meanSquare.squareRoot()
        }
    }
}
