import Atomics
import Dispatch
import Foundation

/// Waits for the end of a long-running command: Ctrl-C (SIGINT), SIGTERM, a time limit, or `finish()`
/// called by the work itself. While it exists, those signals no longer kill the process, so the
/// command can close its files and say goodbye to its peers first.
final class Interruption: @unchecked Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let received = ManagedAtomic<Int32>(0)
    private var sources: [DispatchSourceSignal] = []

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received, wake] in
                received.store(number, ordering: .releasing)
                wake.signal()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal received so far, if any.
    var signalReceived: Int32? {
        let number = received.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// Ends the wait without a signal.
    func finish() { wake.signal() }

    /// Waits for a signal, `finish()` or `timeout` seconds (nil: no limit). Returns the signal that
    /// ended the wait, or nil.
    @discardableResult
    func wait(timeout: Double? = nil) -> Int32? {
        if let timeout {
            _ = wake.wait(timeout: .now() + timeout)
        } else {
            wake.wait()
        }
        return signalReceived
    }
}
