import SeqplaySupport

/// Real-time output for machines without a sound card: renders the engine period by period, each
/// at the moment a device would ask for it (absolute deadlines on the monotonic clock), and discards
/// the audio. Playback timing, sample time and the render path behave as with a sound card.
// Why unchecked: restates RealtimeOutput's contract (its subclass adds no state).
public final class NullOutput: RealtimeOutput, @unchecked Sendable {
    /// An output playing `sampleRate` Hz, `channelCount` channels, `periodFrames` frames per cycle.
    public init(sampleRate: Int = 44_100, channelCount: Int = 2, periodFrames: Int = 256) {
        precondition(sampleRate > 0 && channelCount > 0 && periodFrames > 0, "the null output needs a positive rate, channels and period")
        super.init(driver: ClockDriver(sampleRate: sampleRate, channelCount: channelCount, periodFrames: periodFrames))
    }
}

/// A driver that plays nothing: each write waits until the wall-clock time at which that many frames
/// would have played.
final class ClockDriver: BlockingAudioDriver {
    let sampleRate: Int
    let channelCount: Int
    let periodFrames: Int
    let outputLatencyFrames = 0
    let xrunCount = 0
    private var startNanoseconds: UInt64 = 0
    private var framesDelivered: Int64 = 0

    init(sampleRate: Int, channelCount: Int, periodFrames: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.periodFrames = periodFrames
    }

    func begin() {
        startNanoseconds = MonotonicClock.now()
        framesDelivered = 0
    }

    func write(_ block: AudioBuffer?, frameCount: Int) throws(AudioDriverFailure) {
        framesDelivered += Int64(frameCount)
        // Deadlines come from the frame total, not by adding period lengths, so rounding never drifts.
        // Kept: the pace of a sound card is what this output stands in for; the clock is the thing awaited.
        MonotonicClock.wait(until: startNanoseconds + UInt64(framesDelivered) * 1_000_000_000 / UInt64(sampleRate))
    }

    func finish(draining: Bool) throws(AudioDriverError) {}

    func error(for failure: AudioDriverFailure) -> AudioDriverError {
        AudioDriverError(.failed, "null output: clock_nanosleep failed (errno \(-failure.code))")
    }
}
