import AudioFiles
import CEBUR128

/// Measures the loudness of stereo audio as EBU R128 / ITU-R BS.1770 define it (libebur128):
/// integrated loudness in LUFS, and the sample peak. Feed it the audio as it is rendered, then read
/// the figures; what a batch reports per file and what normalization aims at.
package final class LoudnessMeter {
    private var state: OpaquePointer?
    /// Interleaving space, so `add` does not allocate.
    private let interleaver = StereoInterleaver(chunkFrames: 4096)

    /// A meter for stereo audio at `sampleRate`; nil when libebur128 refuses the rate.
    package init?(sampleRate: Int) {
        guard let state = ebur128_init(2, UInt(sampleRate), Int32(EBUR128_MODE_I.rawValue)) else { return nil }
        self.state = OpaquePointer(state)
    }

    deinit {
        var pointer = UnsafeMutablePointer<ebur128_state>(state)
        ebur128_destroy(&pointer)
    }

    /// Adds `frameCount` frames of the two channels.
    package func add(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frameCount: Int) {
        interleaver.interleave(left: left, right: right, frameCount: frameCount) { samples, frames in
            ebur128_add_frames_float(UnsafeMutablePointer(state), samples, frames)
        }
    }

    /// The integrated loudness of everything added, in LUFS; nil for silence (below the absolute
    /// gate of −70 LUFS throughout).
    package var integratedLoudness: Double? {
        var loudness = 0.0
        guard ebur128_loudness_global(UnsafeMutablePointer(state), &loudness) == Int32(EBUR128_SUCCESS.rawValue),
              loudness.isFinite else { return nil }
        return loudness
    }
}
