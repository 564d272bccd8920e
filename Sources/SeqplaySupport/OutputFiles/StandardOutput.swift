#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The descriptor that output `-` (`OutputTarget.standardOutput`) writes to. It is standard output (fd 1)
/// unless `reserveForData()` was called: then it is a duplicate of the real standard output, and fd 1
/// itself points at standard error, so that text hosted code prints (an LV2 plugin's `printf`, C's or
/// Swift's `print`) can never mix with the data of `-o -`.
package enum StandardOutput {
    /// The duplicate, -1 until reserved. Written once, on the main thread before threads that write start.
    nonisolated(unsafe) private static var reserved: Int32 = -1

    /// Where `-` writes: the reserved duplicate, else fd 1.
    package static var descriptor: Int32 {
        reserved >= 0 ? reserved : STDOUT_FILENO
    }

    /// Keeps the real standard output for the data of `-` alone: duplicates fd 1 (close-on-exec) for
    /// `descriptor`, then points fd 1 at standard error. Call before anything that may print (plugins
    /// are instantiated); calling it again does nothing. Without a standard error to point at, fd 1 stays.
    package static func reserveForData() {
        guard reserved < 0 else { return }
        fflush(nil)
        let duplicate = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard duplicate >= 0 else { return }
        guard dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            close(duplicate)
            return
        }
        reserved = duplicate
    }
}
