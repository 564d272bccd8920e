import Atomics
import Dispatch
import Foundation
import Synchronization

/// Ends a long-running command through its normal path: Ctrl-C (SIGINT), SIGTERM or SIGHUP, a time
/// limit, or `finish()` called by the work itself. While it exists, those signals no longer kill the
/// process, so the command can restore the terminal, send notes off, drain the device, close its
/// files (or remove a half-written one) and say goodbye to its peers first. Wait for it, or poll
/// `isRequested` from a loop.
public final class Interruption: Sendable {
    private let wake: DispatchSemaphore
    private let received: ManagedAtomic<Int32>
    /// Only kept, so their handlers live (dispatch sources are not `Sendable`: they sit in a `Mutex`).
    private let sources: Mutex<[any DispatchSourceSignal]>

    public init(signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        let wake = DispatchSemaphore(value: 0), received = ManagedAtomic<Int32>(0)
        sources = Mutex(signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.store(number, ordering: .releasing)
                wake.signal()
            }
            source.resume()
            return source
        })
        self.wake = wake
        self.received = received
    }

    /// The signal received so far, if any.
    public var signalReceived: Int32? {
        let number = received.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// Whether a signal has arrived.
    public var isRequested: Bool { signalReceived != nil }

    /// Ends the wait without a signal.
    public func finish() { wake.signal() }

    /// Waits as `wait(timeout:)` does, running `periodically` on this thread every `interval` seconds
    /// meanwhile (forwarding FluidSynth's queued messages, say).
    @discardableResult
    public func wait(timeout: Double? = nil, every interval: Double, _ periodically: () -> Void) -> Int32? {
        let end = timeout.map { DispatchTime.now() + $0 }
        while true {
            let next = DispatchTime.now() + interval
            if wake.wait(timeout: end.map { min($0, next) } ?? next) == .success { break }
            periodically()
            if let end, DispatchTime.now() >= end { break }
        }
        return signalReceived
    }

    /// Runs `play` (true when it played to the end) on this thread while a signal calls `stop` from
    /// another; returns what `play` returned.
    public func run(stopping stop: @escaping @Sendable () -> Void, _ play: () throws -> Bool) rethrows -> Bool {
        Thread.detachNewThread { [self] in
            if wait() != nil { stop() }
        }
        defer { finish() }
        return try play()
    }

    /// Waits for a signal, `finish()` or `timeout` seconds (nil: no limit). Returns the signal that
    /// ended the wait, or nil.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Int32? {
        if let timeout {
            _ = wake.wait(timeout: .now() + timeout)
        } else {
            wake.wait()
        }
        return signalReceived
    }
}
