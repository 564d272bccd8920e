import Foundation

/// What a normalized render aims at (`--normalize`, `--lufs`, `--peak`).
public enum Normalization: Sendable, Equatable {
    /// An integrated loudness (EBU R128), in LUFS; −23 is EBU R128's broadcast target.
    case loudness(lufs: Double)
    /// A sample peak, in dBFS.
    case peak(dBFS: Double)
}

/// The one gain a file (and its stems) is scaled by, and whether it had to be lowered so that an
/// integer output does not clip.
public struct NormalizationGain: Sendable, Equatable {
    public var decibels: Double
    /// Lowered below what the target asked for, to keep the peak at full scale.
    public var isLimited: Bool
    public var factor: Float { Float(pow(10, decibels / 20)) }

    public static let none = NormalizationGain(decibels: 0, isLimited: false)

    public init(decibels: Double, isLimited: Bool) {
        self.decibels = decibels
        self.isLimited = isLimited
    }

    /// The gain that brings audio of `loudness` and `peak` to `target`; silence keeps gain 0 dB.
    public init(_ target: Normalization, loudness: Double?, peak: Float, integerOutput: Bool) {
        var decibels: Double
        switch target {
        case .loudness(let lufs):
            guard let loudness else { self = .none; return }
            decibels = lufs - loudness
        case .peak(let dBFS):
            guard peak > 0 else { self = .none; return }
            decibels = dBFS - 20 * log10(Double(peak))
        }
        var limited = false
        if integerOutput, peak > 0 {
            // Full scale less a hair, so the scaled peak never rounds over.
            let ceiling = -20 * log10(Double(peak)) - 0.001
            if decibels > ceiling {
                decibels = ceiling
                limited = true
            }
        }
        self.init(decibels: decibels, isLimited: limited)
    }
}
