import Foundation

/// A DSP kernel that processes non-interleaved Float32 audio in place.
///
/// Kernels know nothing of the audio graph: a node (or a test, or a benchmark) hands them one pointer per
/// channel and a frame count. `prepare` allocates everything the kernel will ever need; `process` runs on the
/// render thread and never allocates, locks, logs or does I/O. Parameters are set from any thread while the
/// kernel plays: they are stored in atomics and taken up by the next `process` call.
public protocol EffectKernel: AnyObject, Sendable {
    /// Allocates buffers for `channelCount` channels at `sampleRate`, and clears all state.
    /// Not real-time safe: call it before rendering starts.
    func prepare(sampleRate: Double, channelCount: Int)

    /// Clears delay lines, filter memories and envelopes (silence in, silence out). Real-time safe.
    func reset()

    /// Processes `frameCount` frames of every channel in `channels` in place. Real-time safe.
    /// `channels.count` must equal the `channelCount` given to `prepare`.
    func process(_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int)

    /// How many frames the kernel delays its input (a look-ahead), at the settings `prepare` set up;
    /// 0 for kernels that do not. Whoever schedules the input can start that much earlier.
    var latencyFrames: Int { get }
}

extension EffectKernel {
    public var latencyFrames: Int { 0 }
}

/// Converts decibels to a linear amplitude factor.
func amplitude(decibels: Float) -> Float { powf(10, decibels / 20) }

/// Converts a linear amplitude factor to decibels (-infinity for 0).
func decibels(amplitude: Float) -> Float { 20 * log10f(amplitude) }

/// Mixes a processed (wet) and original (dry) sample by `wetFraction` in 0...1.
func mix(dry: Float, wet: Float, wetFraction: Float) -> Float {
    dry + (wet - dry) * wetFraction
}
