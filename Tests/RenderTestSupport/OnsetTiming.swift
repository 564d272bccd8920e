import Foundation

/// Finds click onsets in rendered audio and compares them with the exact times a tempo map gives.
///
/// FluidSynth starts a voice at a 64-sample block boundary and ramps it in over that block, so an
/// onset is taken as the first non-zero sample after at least `minimumSilence` zero samples. The
/// constant latency (where in its block the ramp first leaves zero) is calibrated on the first
/// click, which the song places at tick 0.
public enum OnsetTiming {
    /// The sample indexes where sound starts after silence.
    public static func onsets(in samples: [Float], minimumSilence: Int = 256) -> [Int] {
        var onsets: [Int] = []
        var silentRun = minimumSilence
        for (index, sample) in samples.enumerated() {
            if sample == 0 {
                silentRun += 1
            } else {
                if silentRun >= minimumSilence { onsets.append(index) }
                silentRun = 0
            }
        }
        return onsets
    }

    /// How far the onsets are from where they belong.
    public struct Report: CustomStringConvertible {
        /// Clicks in the song and onsets found in the audio.
        public var expectedCount: Int
        public var foundCount: Int
        /// The latency measured on the first click, in samples.
        public var latency: Int
        /// Largest and mean absolute error after removing the latency, in samples.
        public var maximumError: Int
        public var meanError: Double

        public var description: String {
            "\(foundCount)/\(expectedCount) onsets, latency \(latency) samples, error max \(maximumError) mean "
                + String(format: "%.2f", meanError) + " samples"
        }
    }

    /// Compares `onsets` with the exact sample times `expected`. The counts differing means onsets
    /// were merged or lost; the errors then pair them in order.
    public static func compare(onsets: [Int], expected: [Int]) -> Report {
        let latency = (onsets.first ?? 0) - (expected.first ?? 0)
        let errors = zip(onsets, expected).map { abs($0 - latency - $1) }
        return Report(expectedCount: expected.count, foundCount: onsets.count, latency: latency,
                      maximumError: errors.max() ?? 0,
                      meanError: errors.isEmpty ? 0 : Double(errors.reduce(0, +)) / Double(errors.count))
    }
}
