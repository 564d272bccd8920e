import Atomics
import RealtimeSupport

/// Maps times on a sequencer queue's clock (kernel timestamps) to sample times of the audio being
/// rendered, through the monotonic system clock both are measured against.
///
/// The control thread calls `calibrate` now and then (queue clock vs monotonic clock); the render
/// thread calls `observePeriodStart` at the start of every period (sample time vs monotonic clock).
/// A period is rendered once the device has room for it, so a late wake-up only makes the render
/// thread look behind: the estimate keeps the earliest observation, leaking 100 ppm so a device clock
/// slower than the system's is followed. `sampleTime(queueNanoseconds:)` is then a fixed distance from
/// the audio the device plays, whatever the wake-up jitter. Lock-free; nothing allocates.
final class QueueToSampleClock: @unchecked Sendable {
    let sampleRate: Double
    /// Monotonic clock minus queue clock, in ns (written by the control thread).
    private let queueOffset = ManagedAtomic<Int64>(0)
    /// Sample time minus monotonic seconds × rate, in frames, as the bits of a Double; NaN until
    /// the first period (written by the render thread).
    private let sampleOffsetBits = ManagedAtomic<UInt64>(Double.nan.bitPattern)
    /// The render thread's own copy of the estimate.
    private var sampleOffset = Double.nan

    init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    /// Records that the queue clock read `queueNanoseconds` between the monotonic readings `before`
    /// and `after` (control thread).
    func calibrate(queueNanoseconds: UInt64, monotonicBefore before: Int64, after: Int64) {
        queueOffset.store(before + (after - before) / 2 - Int64(queueNanoseconds), ordering: .relaxed)
    }

    /// Records that a period starting at `sampleTime` is being rendered now (render thread).
    func observePeriodStart(sampleTime: Int64, periodFrames: Int) {
        let now = Double(MonotonicClock.now()) / 1e9 * sampleRate
        let observed = Double(sampleTime) - now
        let leaked = sampleOffset - Double(periodFrames) * 1e-4
        sampleOffset = sampleOffset.isNaN ? observed : max(observed, leaked)
        sampleOffsetBits.store(sampleOffset.bitPattern, ordering: .relaxed)
    }

    /// The sample time being rendered when the queue clock read `queueNanoseconds`; `nil` before
    /// the first period.
    func sampleTime(queueNanoseconds: UInt64) -> Int64? {
        let offset = Double(bitPattern: sampleOffsetBits.load(ordering: .relaxed))
        guard !offset.isNaN else { return nil }
        let monotonic = Int64(queueNanoseconds) + queueOffset.load(ordering: .relaxed)
        return Int64((Double(monotonic) / 1e9 * sampleRate + offset).rounded())
    }
}
