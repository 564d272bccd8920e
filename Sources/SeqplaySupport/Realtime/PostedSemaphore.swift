#if canImport(Glibc)
import Glibc

/// A POSIX semaphore that a real-time thread posts (`sem_post`: a futex wake, no lock, no allocation,
/// async-signal-safe) and another thread waits on, up to a deadline on the monotonic clock: how a
/// waiter learns that the awaited side moved, without polling it.
// Why unchecked: a sem_t is made to be shared between threads (every call on it is thread-safe), and its
// storage is fixed from init to deinit.
package final class PostedSemaphore: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    package init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes one waiter, or the next wait (real-time safe).
    package func post() { sem_post(semaphore) }

    /// Waits for a post, however long it takes; returns false when a signal interrupted the wait first.
    @discardableResult
    package func wait() -> Bool { sem_wait(semaphore) == 0 }

    /// Takes a post made before, if any, without waiting; returns whether there was one.
    @discardableResult
    package func take() -> Bool { sem_trywait(semaphore) == 0 }

    /// Waits for a post until the monotonic time `deadline` (ns); returns whether it was posted.
    @discardableResult
    package func wait(until deadline: UInt64) -> Bool { MonotonicClock.wait(on: semaphore, until: deadline) }
}
#endif
