import Atomics
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP turned into a flag the main loop polls, so playback and
/// rendering end through their normal path: terminal restored, notes off, device drained, temporary
/// file removed.
enum Interruption {
    private static let requested = ManagedAtomic(false)

    /// Whether a signal has arrived since `catchSignals()`.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Installs the handlers (the flag store is lock-free, so async-signal-safe).
    static func catchSignals() {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { _ in Interruption.requested.store(true, ordering: .relaxed) }
        }
    }
}
