#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Moves the calling thread in and out of the SCHED_FIFO real-time class, where the system permits
/// it (root, CAP_SYS_NICE or an rtprio limit); elsewhere the thread keeps normal scheduling.
public enum RealtimeScheduling {
    /// The highest SCHED_FIFO priority the system offers.
    public static var maximumPriority: Int32 { sched_get_priority_max(SCHED_FIFO) }

    /// Puts the calling thread in SCHED_FIFO at `priority` (1...99). Returns false, changing
    /// nothing, where that is not permitted or `priority` is 0.
    @discardableResult
    public static func raiseCurrentThread(toPriority priority: Int32) -> Bool {
        guard priority > 0 else { return false }
        var parameters = sched_param()
        parameters.sched_priority = priority
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    /// Puts the calling thread back on the normal policy (after its real-time work is done).
    public static func leaveRealtimeClass() {
        var parameters = sched_param()
        parameters.sched_priority = 0
        pthread_setschedparam(pthread_self(), SCHED_OTHER, &parameters)
    }
}
