import CALSA

/// A little-endian sample format a playback device can take, and how a float sample becomes it.
///
/// Float samples pass through unchanged; integer formats clip to -1...1 and scale by the largest
/// positive value (32767 for 16 bits), rounding to nearest without dither, so a deterministic
/// source converts to the same integers every time.
public enum PCMSampleFormat: String, CaseIterable, Sendable {
    /// 32-bit IEEE float.
    case float32 = "FLOAT_LE"
    /// 32-bit signed integer.
    case signed32 = "S32_LE"
    /// 24-bit signed integer in the low three bytes of four (sign-extended).
    case signed24 = "S24_LE"
    /// 24-bit signed integer packed in three bytes.
    case signed24Packed = "S24_3LE"
    /// 16-bit signed integer.
    case signed16 = "S16_LE"

    /// The order formats are tried in when the caller does not choose: most precise first.
    public static let preferenceOrder: [PCMSampleFormat] = [.float32, .signed32, .signed24, .signed24Packed, .signed16]

    /// Bytes one sample of one channel takes.
    public var bytesPerSample: Int {
        switch self {
        case .float32, .signed32, .signed24: return 4
        case .signed24Packed: return 3
        case .signed16: return 2
        }
    }

    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .float32: return SND_PCM_FORMAT_FLOAT_LE
        case .signed32: return SND_PCM_FORMAT_S32_LE
        case .signed24: return SND_PCM_FORMAT_S24_LE
        case .signed24Packed: return SND_PCM_FORMAT_S24_3LE
        case .signed16: return SND_PCM_FORMAT_S16_LE
        }
    }

    /// `sample` clipped to -1...1 (NaN becomes 0), scaled by `fullScale` and rounded to nearest.
    @inline(__always)
    static func quantize(_ sample: Float, fullScale: Double) -> Int32 {
        var clipped = Double(sample)
        if !(clipped >= -1) { clipped = clipped < -1 ? -1 : 0 }
        if clipped > 1 { clipped = 1 }
        return Int32((clipped * fullScale).rounded())
    }

    /// A 16-bit sample exactly as `InterleavedPCMBuffer` writes it for `.signed16`.
    public static func signed16Sample(_ sample: Float) -> Int16 {
        Int16(truncatingIfNeeded: quantize(sample, fullScale: 32767))
    }
}
