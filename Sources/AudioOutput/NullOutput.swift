import ALSA
import AudioGraph
import RealtimeSupport

/// Real-time output for machines without a sound card: renders the engine period by period, each
/// at the moment a device would ask for it (absolute deadlines on the monotonic clock), and discards
/// the audio. Playback timing, sample time and the render path behave as with `ALSAOutput`.
public final class NullOutput: RealtimeOutput, @unchecked Sendable {
    /// An output playing `sampleRate` Hz, `channelCount` channels, `periodFrames` frames per cycle.
    public init(sampleRate: Int = 44_100, channelCount: Int = 2, periodFrames: Int = 256) {
        precondition(sampleRate > 0 && channelCount > 0 && periodFrames > 0, "the null output needs a positive rate, channels and period")
        super.init(sink: ClockSink(sampleRate: sampleRate, channelCount: channelCount, periodFrames: periodFrames))
    }
}

/// Waits, after each period, until the wall-clock time at which that many frames would have played.
final class ClockSink: PeriodSink {
    let sampleRate: Int
    let channelCount: Int
    let periodFrames: Int
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

    func deliver(_ block: AudioBuffer?, frameCount: Int) throws(PCMWriteFailure) {
        framesDelivered += Int64(frameCount)
        // Deadlines come from the frame total, not by adding period lengths, so rounding never drifts.
        MonotonicClock.sleep(until: startNanoseconds + UInt64(framesDelivered) * 1_000_000_000 / UInt64(sampleRate))
    }

    func finish(draining: Bool) -> ALSAError? { nil }

    func error(for failure: PCMWriteFailure) -> ALSAError {
        .callFailed(device: "null output", call: "clock_nanosleep", reason: "errno \(-failure.code)")
    }
}
