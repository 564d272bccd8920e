import Foundation
import Synchronization

/// A request to stop that a loop looks at (`isRequested`) or waits for (`wait`): the pause of a
/// periodic loop, or a wait for a time, that `request()` cuts short. Once requested it stays so.
/// Foundation and the standard library only (`Scripts/fuzz.sh osc` builds it with `ServiceThread`).
package final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    /// Signalled by `request()`, and again by each wait that took the signal, so every wait returns.
    private let signal = DispatchSemaphore(value: 0)

    package init() {}

    /// Whether `request()` was called.
    package var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Requests the stop (any thread) and wakes whoever waits; returns false when it was requested already.
    @discardableResult
    package func request() -> Bool {
        guard !requested.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        signal.signal()
        return true
    }

    /// Waits up to `nanoseconds` for the request; returns whether it was made.
    @discardableResult
    package func wait(nanoseconds: UInt64) -> Bool {
        guard !isRequested else { return true }
        guard signal.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success else { return isRequested }
        signal.signal()
        return true
    }

    /// Waits until the monotonic time `deadline` (ns, `MonotonicClock`) or the request; returns whether it was made.
    @discardableResult
    package func wait(until deadline: UInt64) -> Bool {
        let now = MonotonicClock.now()
        return wait(nanoseconds: deadline > now ? deadline - now : 0)
    }
}
