#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's monotonic clock (CLOCK_MONOTONIC), in nanoseconds: the one time base that the
/// playout, live-input, network and null-output threads share, the same in every process on the
/// machine. Reading it and waiting on it are real-time safe.
public enum MonotonicClock {
    /// The clock now.
    @inlinable
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Waits until the clock reaches `deadline` (at once if it has): an absolute deadline, so a loop
    /// waking on a grid of deadlines never drifts. The one place seqplay waits for a time itself: a
    /// clock's pace (the real-time sequencer's tick, the null output's periods, a playout's last
    /// millisecond, a song's events), where the time is what is awaited. Real-time safe.
    public static func wait(until deadline: UInt64) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        // Kept: the clock is the thing awaited (an absolute deadline); a signal's interruption waits on.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }

    /// Waits until `deadline`, as `wait(until:)`; the name until 0.15 (kept for the API: a wait for a time).
    @available(*, deprecated, renamed: "wait(until:)")
    public static func sleep(until deadline: UInt64) { wait(until: deadline) }

    #if canImport(Glibc)
    /// Waits on `semaphore` until it is posted or the clock reaches `deadline` (`sem_timedwait`,
    /// whose deadline is on the wall clock, given the time left); returns whether it was posted.
    /// Real-time safe (no allocation, no lock); a wall clock stepped meanwhile only moves the wake.
    @discardableResult
    public static func wait(on semaphore: UnsafeMutablePointer<sem_t>, until deadline: UInt64) -> Bool {
        let current = now()
        guard current < deadline else { return sem_trywait(semaphore) == 0 }
        var until = timespec()
        clock_gettime(CLOCK_REALTIME, &until)
        let nanoseconds = until.tv_nsec + Int(min(deadline - current, 86_400_000_000_000))
        until.tv_sec += nanoseconds / 1_000_000_000
        until.tv_nsec = nanoseconds % 1_000_000_000
        return sem_timedwait(semaphore, &until) == 0
    }
    #endif
}
