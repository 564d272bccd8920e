import Atomics
import Foundation

/// The thread of a service that runs until it is stopped (an OSC server's receiving loop, a network MIDI
/// session's network thread): its running flag, and `stop()` waiting for the thread to end.
package final class ServiceThread: @unchecked Sendable {
    private let running = ManagedAtomic(false)
    private let done = DispatchSemaphore(value: 0)

    package init() {}

    /// Whether the service runs: the thread's loop goes on while this is true.
    package var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Starts a thread named `name` that runs `body` (a loop while `isRunning`), unless one runs already.
    /// `prepare` runs first, only when a thread is started, so the thread sees what it sets.
    package func start(name: String, qualityOfService: QualityOfService? = nil, prepare: () -> Void = {},
                       _ body: @escaping @Sendable () -> Void) {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        prepare()
        let thread = Thread { [done] in
            body()
            done.signal()
        }
        thread.name = name
        if let qualityOfService { thread.qualityOfService = qualityOfService }
        thread.start()
    }

    /// Ends the service: clears the running flag and, when a thread was running, waits for it to end.
    package func stop() {
        if running.exchange(false, ordering: .acquiringAndReleasing) { done.wait() }
    }
}
