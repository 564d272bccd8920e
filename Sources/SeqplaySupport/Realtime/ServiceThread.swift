import Foundation
import Synchronization

/// The thread of a service (an OSC server's receiving loop, a shell's accept loop, a recorder's writer,
/// a sequencer's sender): one life cycle for all of them. `start` runs the service's loop on a thread
/// of its own; `requestStop` asks it to end (the loop sees `isStopRequested`, and `waitForStop`
/// returns at once); `join` waits for the loop to return; `stop` is both. A loop that ends by itself
/// (a song played to its end) is joined the same way. Started again after `join`, it runs a new thread.
/// Foundation and the standard library only, so a fuzzer can build it with the module that uses it
/// (`Scripts/fuzz.sh osc`).
package final class ServiceThread: Sendable {
    /// One started thread: its stop request, and its end (signalled once and kept signalled).
    private final class Run: Sendable {
        let stop = StopRequest()
        let ended = DispatchSemaphore(value: 0)
    }

    /// The thread started last (nil: never started), and whether it has been joined.
    private let current = Mutex<(run: Run?, joined: Bool)>((nil, true))

    package init() {}

    private var run: Run? { current.withLock { $0.run } }

    /// Whether a thread was started and has not been asked to stop: the loop goes on while this is true.
    package var isRunning: Bool {
        guard let run else { return false }
        return !run.stop.isRequested
    }

    /// Whether the loop was asked to end (`requestStop`, `stop`).
    package var isStopRequested: Bool { run?.stop.isRequested ?? false }

    /// Starts a thread named `name` that runs `body` (a loop while `isRunning`), unless one runs
    /// already (started and not asked to stop); a thread asked to stop is joined first. `prepare`
    /// runs before, only when a thread is started, so the thread sees what it sets. `stackSize`
    /// (bytes; nil: the system's) for a body that needs more. Returns whether a thread was started.
    @discardableResult
    package func start(name: String, qualityOfService: QualityOfService? = nil, stackSize: Int? = nil,
                       prepare: () -> Void = {}, _ body: @escaping @Sendable () -> Void) -> Bool {
        if let previous = run, previous.stop.isRequested { join() }
        return current.withLock { current -> Bool in
            if let running = current.run, !running.stop.isRequested { return false }
            prepare()
            let run = Run()
            current = (run, false)
            let thread = Thread {
                body()
                run.ended.signal()
            }
            thread.name = name
            if let qualityOfService { thread.qualityOfService = qualityOfService }
            if let stackSize { thread.stackSize = stackSize }
            thread.start()
            return true
        }
    }

    /// Asks the loop to end, without waiting: `isRunning` turns false and `waitForStop` returns.
    package func requestStop() {
        run?.stop.request()
    }

    /// Waits until the thread has ended (at once when none was started, or it was joined already).
    package func join() {
        guard let run = current.withLock({ $0.joined ? nil : $0.run }) else { return }
        run.ended.wait()
        run.ended.signal()  // kept signalled: every joiner returns
        current.withLock { if $0.run === run { $0.joined = true } }
    }

    /// Ends the service: asks the loop to end and waits for its thread.
    package func stop() {
        requestStop()
        join()
    }

    /// Waits up to `nanoseconds` for a stop request (from the loop: its pause between two rounds of
    /// periodic work, which a stop cuts short); returns whether the loop should end.
    @discardableResult
    package func waitForStop(nanoseconds: UInt64) -> Bool {
        run?.stop.wait(nanoseconds: nanoseconds) ?? true
    }
}
