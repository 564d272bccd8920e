#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time as the network MIDI code uses it: nanoseconds for scheduling, and the 10 kHz
/// (100 µs) ticks that AppleMIDI uses for RTP and clock-sync timestamps.
public enum NetworkClock {
    /// Nanoseconds per RTP / clock-sync tick.
    public static let nanosecondsPerTick: UInt64 = 100_000

    /// The monotonic clock now, in nanoseconds (CLOCK_MONOTONIC: the same in every process on the machine).
    public static func nowNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Sleeps until the monotonic clock reaches `nanoseconds` (returns at once if it has).
    static func sleep(until nanoseconds: UInt64) {
        var spec = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}

/// Puts the calling thread in the SCHED_FIFO real-time class at `priority` (1...99), so network and
/// playout timing hold up on a busy machine. Returns false where that is not permitted (an ordinary
/// user without the rtprio limit): the thread then keeps normal scheduling.
@discardableResult
func raiseCurrentThreadToRealTimePriority(_ priority: Int32) -> Bool {
    guard priority > 0 else { return false }
    var parameters = sched_param()
    parameters.sched_priority = priority
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
}
