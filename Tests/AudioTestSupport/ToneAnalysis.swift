import Foundation

/// Measurements the audio tests make on rendered signals.
public enum ToneAnalysis {
    /// The frequency of the strongest component of `samples` between `lowest` and `highest` Hz,
    /// found by evaluating the Hann-windowed DFT on a 1 Hz grid and refining around the peak on a
    /// 0.01 Hz grid. With a one-second window this resolves a steady tone to well under 0.1 Hz.
    public static func dominantFrequency(
        of samples: ArraySlice<Float>, sampleRate: Double, lowest: Double, highest: Double
    ) -> Double {
        let count = samples.count
        let windowed: [Double] = samples.enumerated().map { index, sample in
            Double(sample) * (0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(count - 1)))
        }
        func magnitude(at frequency: Double) -> Double {
            let step = 2 * Double.pi * frequency / sampleRate
            var re = 0.0, im = 0.0
            for (index, value) in windowed.enumerated() {
                re += value * cos(step * Double(index))
                im -= value * sin(step * Double(index))
            }
            return re * re + im * im
        }
        func peak(from low: Double, to high: Double, by step: Double) -> Double {
            stride(from: low, through: high, by: step)
                .map { (frequency: $0, magnitude: magnitude(at: $0)) }
                .max { $0.magnitude < $1.magnitude }?.frequency ?? low
        }
        let coarse = peak(from: lowest, to: highest, by: 1)
        return peak(from: coarse - 1, to: coarse + 1, by: 0.01)
    }

    /// The index of the first sample whose magnitude reaches `threshold`, or `nil`.
    public static func onset(of samples: ArraySlice<Float>, threshold: Float) -> Int? {
        samples.firstIndex { abs($0) >= threshold }
    }

    /// The largest sample magnitude.
    public static func peak(of samples: ArraySlice<Float>) -> Float {
        samples.reduce(0) { max($0, abs($1)) }
    }
}
