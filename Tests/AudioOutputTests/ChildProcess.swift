#if canImport(Glibc)
import Glibc
#endif

/// A program run with posix_spawn and reaped with waitpid. The tests use it instead of Foundation's
/// Process, whose run-loop machinery fails inside the minimal alsa-vm guest ("Could not create
/// wakeup socket pair for CFSocket").
final class ChildProcess {
    private let pid: pid_t

    /// Starts `path` with `arguments` (argv[1...]), inheriting stdout, and stderr unless
    /// `standardErrorPath` names a file to write it to instead.
    init(_ path: String, _ arguments: [String], standardErrorPath: String? = nil) throws {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardErrorPath {
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw SpawnError(path: path, code: result) }
        self.pid = pid
    }

    /// Waits for the program to end and returns its exit status (128 + signal when killed).
    @discardableResult
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Asks the program to end (SIGTERM).
    func terminate() { kill(pid, SIGTERM) }

    struct SpawnError: Error {
        let path: String
        let code: Int32
    }
}
