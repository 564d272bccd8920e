import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program a test starts: the one process runner of the tests. Started with posix_spawn and reaped
/// with waitpid, not with Foundation's `Process`, whose run-loop machinery fails inside the minimal
/// alsa-vm guest ("Could not create wakeup socket pair for CFSocket"). Captured output goes to
/// temporary files (read with `standardOutputText`/`standardErrorText`, also while it runs), so a
/// chatty child can never stall on a full pipe.
public final class ChildProcess: @unchecked Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case inherit, null
        /// These bytes, then end of file.
        case data(Data)
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        case inherit, null
        /// A temporary file the test reads back.
        case capture
        /// The file at this path (created or truncated).
        case file(String)
    }

    public let processIdentifier: pid_t
    private let lock = NSLock()
    private var waitStatus: Int32?
    private let outputPath: String?, errorPath: String?, inputPath: String?

    /// Starts `executable` with `arguments` (argv[1...]) in `environment` (nil: this process's).
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                standardInput: Input = .inherit, standardOutput: Output = .inherit, standardError: Output = .inherit) throws {
        func temporaryPath(_ suffix: String) -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).\(suffix)").path
        }
        func path(_ output: Output, _ suffix: String) -> String? {
            switch output {
            case .inherit: return nil
            case .null: return "/dev/null"
            case .capture: return temporaryPath(suffix)
            case .file(let path): return path
            }
        }
        var input: String?
        switch standardInput {
        case .inherit: input = nil
        case .null: input = "/dev/null"
        case .data(let data):
            input = temporaryPath("in")
            guard FileManager.default.createFile(atPath: input!, contents: data) else { throw CocoaError(.fileWriteUnknown) }
        }
        let outputFile = path(standardOutput, "out"), errorFile = path(standardError, "err")
        if case .data = standardInput { inputPath = input } else { inputPath = nil }
        if case .capture = standardOutput { outputPath = outputFile } else { outputPath = nil }
        if case .capture = standardError { errorPath = errorFile } else { errorPath = nil }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input, O_RDONLY, 0) }
        if let outputFile { posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if let errorFile { posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        // As Foundation's Process: the child gets only its three standard descriptors (none of the test
        // process's sockets or devices), default signal handling and no blocked signals.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let result = envp.map { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            [inputPath, outputPath, errorPath].compactMap { $0 }.forEach { try? FileManager.default.removeItem(atPath: $0) }
            throw SpawnError(path: executable, code: result)
        }
        processIdentifier = pid
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which Swift's Glibc module does not
    /// declare.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// Starts the executable at `url` (see the other initializer).
    public convenience init(_ url: URL, _ arguments: [String], environment: [String: String]? = nil,
                            standardInput: Input = .inherit, standardOutput: Output = .inherit, standardError: Output = .inherit) throws {
        try self.init(url.path, arguments, environment: environment, standardInput: standardInput,
                      standardOutput: standardOutput, standardError: standardError)
    }

    deinit {
        [inputPath, outputPath, errorPath].compactMap { $0 }.forEach { try? FileManager.default.removeItem(atPath: $0) }
    }

    /// Reaps the child if it has ended (`block`: waits for it); its raw wait status once it has.
    private func reap(block: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        while true {
            let result = waitpid(processIdentifier, &status, block ? 0 : WNOHANG)
            if result == processIdentifier { waitStatus = status; return status }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            waitStatus = 0  // ECHILD: reaped elsewhere; nothing more to learn
            return 0
        }
    }

    public var isRunning: Bool { reap(block: false) == nil }

    /// Waits for the child to end; returns `exitStatus`.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        _ = reap(block: true)
        return exitStatus
    }

    /// Waits up to `timeout` seconds for the child to end (polling); whether it has.
    public func waitUntilExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    public func signal(_ number: Int32) { if isRunning { kill(processIdentifier, number) } }
    /// SIGTERM.
    public func terminate() { signal(SIGTERM) }
    /// SIGINT.
    public func interrupt() { signal(SIGINT) }

    /// Once ended: the exit status, or the number of the signal that ended it (as Foundation's `Process`).
    public var terminationStatus: Int32 {
        let status = reap(block: false) ?? 0
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Once ended: a signal ended it.
    public var killedBySignal: Bool {
        let status = reap(block: false) ?? 0
        return status & 0x7f != 0
    }

    /// Once ended: the exit status, or 128 + the signal's number (as a shell reports it).
    public var exitStatus: Int32 { killedBySignal ? 128 + terminationStatus : terminationStatus }

    /// What the child wrote to a captured standard output so far ("" when not captured).
    public var standardOutputText: String { String(decoding: standardOutputData, as: UTF8.self) }
    /// The bytes the child wrote to a captured standard output so far (empty when not captured).
    public var standardOutputData: Data { outputPath.flatMap { FileManager.default.contents(atPath: $0) } ?? Data() }
    /// What the child wrote to a captured standard error so far ("" when not captured).
    public var standardErrorText: String { Self.text(at: errorPath) }

    private static func text(at path: String?) -> String {
        guard let path, let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let path: String
        public let code: Int32
        public var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }
}
