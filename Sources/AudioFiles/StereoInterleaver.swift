/// Space to interleave two channel buffers in, allocated once: for the C libraries that take stereo
/// as interleaved frames (libsndfile's writes, libebur128's meter) fed from non-interleaved audio.
package final class StereoInterleaver {
    private let scratch: UnsafeMutablePointer<Float>
    private let chunkFrames: Int

    /// Interleaves up to `chunkFrames` frames at a time.
    package init(chunkFrames: Int) {
        self.chunkFrames = max(1, chunkFrames)
        scratch = .allocate(capacity: 2 * self.chunkFrames)
    }

    deinit { scratch.deallocate() }

    /// Hands `frameCount` frames of `left` and `right` to `consume`, interleaved, a chunk at a time:
    /// the chunk's samples and its frame count. Does not allocate.
    package func interleave<Failure: Error>(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frameCount: Int,
                                            into consume: (UnsafePointer<Float>, Int) throws(Failure) -> Void) throws(Failure) {
        var done = 0
        while done < frameCount {
            let chunk = min(chunkFrames, frameCount - done)
            for frame in 0..<chunk {
                scratch[2 * frame] = left[done + frame]
                scratch[2 * frame + 1] = right[done + frame]
            }
            try consume(scratch, chunk)
            done += chunk
        }
    }
}
