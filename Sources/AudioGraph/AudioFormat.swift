/// The shape of the audio on one connection: sample rate and channel count.
///
/// Samples are always 32-bit float, non-interleaved (one contiguous array per channel), so the
/// format needs nothing else.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second.
    public let sampleRate: Double
    /// Number of channels (1 = mono, 2 = stereo: 0 left, 1 right).
    public let channelCount: Int

    /// A format with `sampleRate` > 0 and `channelCount` ≥ 1.
    public init(sampleRate: Double, channelCount: Int) {
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be positive")
        precondition(channelCount >= 1, "an audio format needs at least one channel")
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// 44 100 Hz stereo, the engine's default.
    public static let standard = AudioFormat(sampleRate: 44_100, channelCount: 2)

    public var description: String {
        let rate = sampleRate == sampleRate.rounded() ? String(Int(sampleRate)) : String(sampleRate)
        return "\(rate) Hz, \(channelCount) ch"
    }
}
