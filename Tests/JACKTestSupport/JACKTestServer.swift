import Foundation
import TestSupport

/// A real JACK server for tests: `jackd --no-realtime -S -d dummy` (no sound card, no D-Bus) under a
/// name of its own, so tests and test runs never share a server. Stopped when released. Synchronous
/// mode (-S): the server waits for every client each cycle, as a loaded test machine needs for a
/// capture to hold every frame (asynchronous mode drops a late client's cycle as an xrun).
public final class JACKTestServer: @unchecked Sendable {
    /// The server's name; clients reach it with `JACKClient(name:serverName:)` or, for child
    /// processes, through `environment` (`JACK_DEFAULT_SERVER`).
    public private(set) var name = ""
    public let sampleRate: Int
    public let blockFrames: Int
    private var process: ChildProcess?

    /// Why JACK tests cannot run here, or nil when they can: they run from `Scripts/test-jack`
    /// (SEQPLAY_JACK_TESTS=1) with jackd installed, so the plain `swift test` run does not repeat them.
    public static var skipReason: String? {
        if jackdPath == nil { return "jackd is not installed (Scripts/setup installs jackd2)" }
        if ProcessInfo.processInfo.environment["SEQPLAY_JACK_TESTS"] != "1" { return "JACK tests run from Scripts/test-jack" }
        return nil
    }

    /// Where jackd is, or nil when it is not installed (`Scripts/setup` installs jackd2).
    public static let jackdPath: String? = ["/usr/bin/jackd", "/usr/local/bin/jackd"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Starts a server and waits until it takes clients. Throws when jackd is missing or does not start.
    public init(sampleRate: Int = 48_000, blockFrames: Int = 256) throws {
        guard let jackd = Self.jackdPath else { throw ServerError("jackd is not installed (run Scripts/setup)") }
        self.sampleRate = sampleRate
        self.blockFrames = blockFrames
        // libjack's registry holds 8 servers and frees a killed server's entry only for a server of the
        // same name: names come from a small pool, the next one taken when a name is in use.
        // A name another test run's server answers to is skipped (two runs on one server would stall each
        // other: the server waits for every client each cycle), and servers orphaned by a killed run are ended.
        Self.endOrphanedServers()
        var lastError: Error = ServerError("no free server name")
        for slot in 0..<6 {
            let name = "seqplay-test-\(slot)"
            if Self.serverAnswers(name) { continue }
            do {
                process = try Self.launch(jackd, name: name, sampleRate: sampleRate, blockFrames: blockFrames)
                self.name = name
                try waitUntilReady()
                return
            } catch {
                lastError = error
                stop()
            }
        }
        throw lastError
    }

    private static func launch(_ jackd: String, name: String, sampleRate: Int, blockFrames: Int) throws -> ChildProcess {
        try ChildProcess(jackd, ["--no-realtime", "-S", "-n", name, "-d", "dummy", "-r", "\(sampleRate)", "-p", "\(blockFrames)"],
                         environment: baseEnvironment, standardInput: .null, standardOutput: .null, standardError: .null)
    }

    deinit { stop() }

    /// Whether a running server takes clients under `name`.
    private static func serverAnswers(_ name: String) -> Bool {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(baseEnvironment) { $1 }
        environment["JACK_DEFAULT_SERVER"] = name
        return (try? JACKTools.run("jack_lsp", [], environment: environment))?.status == 0
    }

    /// Kills test servers whose test process is gone (their parent is now init): a test run killed
    /// mid-test leaves its jackd behind, holding a name of the pool.
    private static func endOrphanedServers() {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in processes.compactMap(Int32.init) {
            guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                  let text = String(data: commandLine, encoding: .utf8),
                  text.split(separator: "\0").contains(where: { $0.hasPrefix("seqplay-test-") }),
                  text.hasPrefix(jackdPath ?? "jackd"),
                  let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  status.split(separator: "\n").contains(where: { $0.hasPrefix("PPid:") && $0.hasSuffix("\t1") })
            else { continue }
            Foundation.kill(pid, SIGKILL)
        }
    }

    /// The environment a child process needs to use this server (JACK_DEFAULT_SERVER set).
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(Self.baseEnvironment) { $1 }
        environment["JACK_DEFAULT_SERVER"] = name
        return environment
    }

    public var isRunning: Bool { process?.isRunning ?? false }
    public var processIdentifier: Int32 { process?.processIdentifier ?? 0 }

    /// Ends the server: SIGTERM, then SIGKILL after 3 s. Waits for it to exit.
    public func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        if !process.waitUntilExit(timeout: 3) { process.signal(SIGKILL) }
        process.waitUntilExit()
        removeSemaphores()
    }

    /// Kills the server outright (SIGKILL), as a crash would, and waits for it to be gone.
    public func kill() {
        guard let process, process.isRunning else { return }
        process.signal(SIGKILL)
        process.waitUntilExit()
        removeSemaphores()
    }

    /// jackd leaves a POSIX semaphore per client in /dev/shm, and when killed its shared memory too.
    private func removeSemaphores() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []
        for file in names where (file.hasPrefix("jack_sem.") && file.contains("_\(name)_")) || file.hasPrefix("jack_\(name)_") {
            try? FileManager.default.removeItem(atPath: "/dev/shm/\(file)")
        }
    }

    private static let baseEnvironment = [
        "JACK_NO_AUDIO_RESERVATION": "1", "JACK_NO_START_SERVER": "1", "PATH": "/usr/bin:/bin:/usr/local/bin",
    ]

    private func waitUntilReady() throws {
        // The server's socket appears in /dev/shm when it takes clients: jack_lsp succeeds then.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard let process, process.isRunning else { throw ServerError("jackd exited at start (status \(process?.terminationStatus ?? -1))") }
            if (try? JACKTools.run("jack_lsp", [], environment: environment))?.status == 0 {
                // A jackd that found its name taken exits at once: still running now means the server is ours.
                usleep(100_000)
                guard process.isRunning else { throw ServerError("jackd exited at start: its name was taken") }
                return
            }
            usleep(50_000)
        }
        stop()
        throw ServerError("jackd did not take clients within 10 s")
    }

    public struct ServerError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Runs jackd2's command-line tools (`jack_lsp`, `jack_transport`, `jack_rec`…) for tests.
public enum JACKTools {
    /// Runs `tool` with `arguments` to completion; returns its exit status and standard output.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], environment: [String: String],
                           input: String? = nil) throws -> (status: Int32, output: String) {
        let process = try ChildProcess("/usr/bin/\(tool)", arguments, environment: environment,
                                       standardInput: input.map { .data(Data($0.utf8)) } ?? .null,
                                       standardOutput: .capture, standardError: .null)
        process.waitUntilExit()
        return (process.terminationStatus, process.standardOutputText)
    }
}

extension JACKTools {
    /// Starts `executable` with `arguments` in the background; its standard error is captured
    /// (`standardErrorText`).
    public static func launch(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> ChildProcess {
        try ChildProcess(executable, arguments, environment: environment, standardInput: .null, standardOutput: .null, standardError: .capture)
    }
}
