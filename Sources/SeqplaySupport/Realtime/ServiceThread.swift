import Foundation

/// The thread of a service that runs until it is stopped (an OSC server's receiving loop, a network MIDI
/// session's network thread): its running flag under a lock, and `stop()` waiting for the thread to end.
/// Foundation only, so a fuzzer can build it with the module that uses it (`Scripts/fuzz.sh osc`).
package final class ServiceThread: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private let done = DispatchSemaphore(value: 0)

    package init() {}

    /// Whether the service runs: the thread's loop goes on while this is true.
    package var isRunning: Bool { lock.withLock { running } }

    /// Starts a thread named `name` that runs `body` (a loop while `isRunning`), unless one runs already.
    /// `prepare` runs first, only when a thread is started, so the thread sees what it sets.
    package func start(name: String, qualityOfService: QualityOfService? = nil, prepare: () -> Void = {},
                       _ body: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !running else { return }
        prepare()
        running = true
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
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        if wasRunning { done.wait() }
    }
}
