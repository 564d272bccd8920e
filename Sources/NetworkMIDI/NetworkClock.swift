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
