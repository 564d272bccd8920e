import ALSA
import AudioGraph

/// Where a render loop sends each rendered period: a sound device, or a clock standing in for one.
protocol PeriodSink: AnyObject {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    var periodFrames: Int { get }
    /// Underruns recovered so far. Read on the render thread only.
    var xrunCount: Int { get }

    /// Called on the render thread just before the first period.
    func begin()
    /// Plays `frameCount` frames of `block` (silence when nil), blocking until the output wants the
    /// next period. Runs on the render thread: must not allocate, lock, log or do other I/O.
    func deliver(_ block: AudioBuffer?, frameCount: Int) throws(PCMWriteFailure)
    /// Called once after the last period, off real-time scheduling: plays what is buffered to the end
    /// (`draining`) or discards it. Returns an error if that failed.
    func finish(draining: Bool) -> ALSAError?
    /// The typed error for a failure `deliver` threw.
    func error(for failure: PCMWriteFailure) -> ALSAError
}
