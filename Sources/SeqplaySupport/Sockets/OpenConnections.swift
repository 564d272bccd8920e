import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The connections a listening server (the shell face, the HTTP face's gate) has open, and whether it
/// was stopped: a connection is admitted only while the server runs and under its limit, and `stop`
/// closes the listener and shuts every open connection down, so that the accept loop and each
/// connection's thread return. One place for what both servers did alike.
package final class OpenConnections: Sendable {
    private let state = Mutex<(connections: Set<Int32>, stopped: Bool)>(([], false))

    package init() {}

    /// Whether `stop` was called.
    package var isStopped: Bool { state.withLock { $0.stopped } }

    /// Adds `fd` unless the server was stopped or `limit` connections are open; returns whether it was added.
    package func admit(_ fd: Int32, limit: Int = .max) -> Bool {
        state.withLock { state in
            guard !state.stopped, state.connections.count < limit else { return false }
            state.connections.insert(fd)
            return true
        }
    }

    /// Forgets `fd` (its connection ended; the caller closes it).
    package func remove(_ fd: Int32) {
        state.withLock { _ = $0.connections.remove(fd) }
    }

    /// Marks the server stopped, closes `listener` and shuts down every open connection (their owners
    /// close them as their threads end). Returns false, doing nothing, when it was stopped already.
    @discardableResult
    package func stop(closing listener: Int32) -> Bool {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.connections
        }
        guard let open else { return false }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        return true
    }

    /// Accepts the next connection on `listener` (close-on-exec), with its peer's address; an accept
    /// interrupted, aborted by the peer or short of descriptors is tried again. Nil once the listener
    /// fails for good (`stop` closed it).
    package func accept(on listener: Int32) -> (fd: Int32, peer: sockaddr_storage)? {
        while true {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
            }
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                return (fd, peer)
            }
            guard [EINTR, ECONNABORTED, EMFILE, ENFILE].contains(errno), !isStopped else { return nil }
        }
    }

    /// Runs `serve` on a thread of its own named `threadName` for the admitted connection `fd`, which is
    /// forgotten and closed when `serve` returns.
    package func serve(_ fd: Int32, threadName: String, _ serve: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            serve()
            remove(fd)
            close(fd)
        }
        thread.name = threadName
        thread.start()
    }
}
