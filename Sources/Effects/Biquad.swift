import Foundation

/// The response shapes of an EQ band, after AVAudioUnitEQFilterType. Formulas: R. Bristow-Johnson,
/// "Cookbook formulae for audio EQ biquad filter coefficients".
public enum EQFilterType: Int, Sendable, CaseIterable {
    /// Bell boost/cut of `gain` dB at `frequency`, `bandwidth` octaves wide.
    case parametric
    /// 2nd-order Butterworth low pass (−3 dB at `frequency`).
    case lowPass
    /// 2nd-order Butterworth high pass (−3 dB at `frequency`).
    case highPass
    /// Low pass with a resonant peak; a narrower `bandwidth` means a higher Q.
    case resonantLowPass
    /// High pass with a resonant peak; a narrower `bandwidth` means a higher Q.
    case resonantHighPass
    /// Band pass with 0 dB at `frequency`, `bandwidth` octaves wide.
    case bandPass
    /// Notch at `frequency`, `bandwidth` octaves wide.
    case bandStop
    /// Shelf of `gain` dB below `frequency` (slope 1).
    case lowShelf
    /// Shelf of `gain` dB above `frequency` (slope 1).
    case highShelf
    /// Low shelf whose corner resonates according to `bandwidth`.
    case resonantLowShelf
    /// High shelf whose corner resonates according to `bandwidth`.
    case resonantHighShelf
}

/// Normalised biquad coefficients (a0 = 1): y = b0 x + b1 x1 + b2 x2 − a1 y1 − a2 y2.
public struct BiquadCoefficients: Sendable, Equatable {
    public var b0: Double, b1: Double, b2: Double, a1: Double, a2: Double

    /// Passes the signal unchanged.
    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// The cookbook design for `type` at `frequency` Hz, `bandwidth` octaves and `gain` dB.
    /// The frequency is kept inside (1 Hz, 0.49 × sampleRate).
    public init(type: EQFilterType, frequency: Double, bandwidth: Double, gain: Double, sampleRate: Double) {
        let f0 = min(max(frequency, 1), 0.49 * sampleRate)
        let w0 = 2 * Double.pi * f0 / sampleRate
        let cosW = cos(w0), sinW = sin(w0)
        let A = pow(10, gain / 40)
        let butterworthQ = 1 / 2.0.squareRoot()
        // Bandwidth in octaves → alpha (digital bandwidth, cookbook eq. for BW).
        let alphaBandwidth = sinW * sinh(log(2) / 2 * max(bandwidth, 0.01) * w0 / sinW)
        let alphaButterworth = sinW / (2 * butterworthQ)
        let alphaShelf = sinW / 2 * 2.0.squareRoot()  // shelf slope S = 1
        let b0, b1, b2, a0, a1, a2: Double
        switch type {
        case .lowPass, .resonantLowPass:
            let alpha = type == .lowPass ? alphaButterworth : alphaBandwidth
            (b0, b1, b2) = ((1 - cosW) / 2, 1 - cosW, (1 - cosW) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosW, 1 - alpha)
        case .highPass, .resonantHighPass:
            let alpha = type == .highPass ? alphaButterworth : alphaBandwidth
            (b0, b1, b2) = ((1 + cosW) / 2, -(1 + cosW), (1 + cosW) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosW, 1 - alpha)
        case .bandPass:
            (b0, b1, b2) = (alphaBandwidth, 0, -alphaBandwidth)
            (a0, a1, a2) = (1 + alphaBandwidth, -2 * cosW, 1 - alphaBandwidth)
        case .bandStop:
            (b0, b1, b2) = (1, -2 * cosW, 1)
            (a0, a1, a2) = (1 + alphaBandwidth, -2 * cosW, 1 - alphaBandwidth)
        case .parametric:
            (b0, b1, b2) = (1 + alphaBandwidth * A, -2 * cosW, 1 - alphaBandwidth * A)
            (a0, a1, a2) = (1 + alphaBandwidth / A, -2 * cosW, 1 - alphaBandwidth / A)
        case .lowShelf, .resonantLowShelf:
            let alpha = type == .lowShelf ? alphaShelf : alphaBandwidth
            let k = 2 * A.squareRoot() * alpha
            b0 = A * ((A + 1) - (A - 1) * cosW + k)
            b1 = 2 * A * ((A - 1) - (A + 1) * cosW)
            b2 = A * ((A + 1) - (A - 1) * cosW - k)
            a0 = (A + 1) + (A - 1) * cosW + k
            a1 = -2 * ((A - 1) + (A + 1) * cosW)
            a2 = (A + 1) + (A - 1) * cosW - k
        case .highShelf, .resonantHighShelf:
            let alpha = type == .highShelf ? alphaShelf : alphaBandwidth
            let k = 2 * A.squareRoot() * alpha
            b0 = A * ((A + 1) + (A - 1) * cosW + k)
            b1 = -2 * A * ((A - 1) + (A + 1) * cosW)
            b2 = A * ((A + 1) + (A - 1) * cosW - k)
            a0 = (A + 1) - (A - 1) * cosW + k
            a1 = 2 * ((A - 1) - (A + 1) * cosW)
            a2 = (A + 1) - (A - 1) * cosW - k
        }
        self.init(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// The analytic magnitude |H(e^jω)| at `frequency` Hz, in dB.
    public func magnitudeDecibels(at frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        // H(z) with z^-1 = e^-jw.
        let (c1, s1, c2, s2) = (cos(w), -sin(w), cos(2 * w), -sin(2 * w))
        let numRe = b0 + b1 * c1 + b2 * c2, numIm = b1 * s1 + b2 * s2
        let denRe = 1 + a1 * c1 + a2 * c2, denIm = a1 * s1 + a2 * s2
        let power = (numRe * numRe + numIm * numIm) / (denRe * denRe + denIm * denIm)
        return 10 * log10(power)
    }
}

/// One biquad section's memory for one channel (transposed direct form II), in Double for accuracy at
/// low frequencies.
struct BiquadState {
    var z1: Double = 0, z2: Double = 0

    /// Filters `count` samples of `samples` in place.
    mutating func process(_ samples: UnsafeMutablePointer<Float>, count: Int, _ c: BiquadCoefficients) {
        var z1 = self.z1, z2 = self.z2
        for i in 0..<count {
            let x = Double(samples[i])
            let y = c.b0 * x + z1
            z1 = c.b1 * x - c.a1 * y + z2
            z2 = c.b2 * x - c.a2 * y
            samples[i] = Float(y)
        }
        // Flush denormals so a silent tail does not slow the CPU down.
        self.z1 = abs(z1) < 1e-30 ? 0 : z1
        self.z2 = abs(z2) < 1e-30 ? 0 : z2
    }
}
