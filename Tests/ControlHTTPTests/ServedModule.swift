import Foundation
import TestSupport
import XCTest

/// A `seqplay serve --network -o FILE --http 127.0.0.1:0` running for a test class (recording on the
/// system clock, so no sound card is needed), and `curl` to talk to it: the real clients of the API.
final class ServedModule {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let font = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path

    let process: ChildProcess
    /// The module's files: its recording, state, data and error log.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    var errorLog: URL { directory.appendingPathComponent("serve.err") }
    /// http://127.0.0.1:PORT
    let base: String
    let port: Int
    /// The network MIDI session's control port (127.0.0.1).
    let networkPort: Int

    /// Starts serve with `extra` arguments (and `--http ADDRESS`, default 127.0.0.1:0); waits for its
    /// "HTTP control at" line.
    init(http: String = "127.0.0.1:0", extra: [String] = [], environment: [String: String] = [:]) throws {
        let scratch = try ScratchDirectory(prefix: "seqplay-http")
        self.scratch = scratch
        let errorLog = URL(fileURLWithPath: scratch.path("serve.err"))
        let networkPort = Int.random(in: 15_000..<20_000) * 2
        self.networkPort = networkPort
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        env["XDG_STATE_HOME"] = env["XDG_STATE_HOME"] ?? scratch.path("state")
        env["XDG_DATA_HOME"] = scratch.path("data")
        process = try ChildProcess(seqplayBinary.path,
                                   ["serve", "--network", "--listen", "127.0.0.1:\(networkPort)", "--no-alsa-ports",
                                    "--sf2", Self.font, "-o", scratch.path("heard.wav"), "--http", http] + extra,
                                   environment: env, standardInput: .null, standardOutput: .null, standardError: .file(errorLog.path))
        var found: Int?
        for _ in 0..<1000 {
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            if let range = log.range(of: #"HTTP control at http://[^ ]+:(\d+)/"#, options: .regularExpression) {
                found = Int(log[range].split(separator: ":").last!.dropLast())
                break
            }
            if !process.isRunning { break }
            usleep(10_000)
        }
        guard let found else {
            process.terminate()
            _ = process.waitUntilExit()
            throw ServeError(log: (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "")
        }
        port = found
        base = "http://127.0.0.1:\(found)"
    }

    struct ServeError: Error, CustomStringConvertible {
        var log: String
        var description: String { "serve --http did not start: \(log)" }
    }

    var log: String { (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "" }

    /// The port a face said it listens on ("FluidSynth shell on 127.0.0.1:PORT", "OSC on 127.0.0.1:PORT").
    func port(ofFace face: String) -> Int? {
        guard let range = log.range(of: face + #" on 127\.0\.0\.1:\d+"#, options: .regularExpression) else { return nil }
        return Int(log[range].split(separator: ":").last!)
    }

    /// Ends serve (SIGTERM, as a user's Ctrl-C) and returns its exit status.
    func stop() -> Int32 {
        process.terminate()
        let ended = process.waitUntilExit(timeout: 10)
        if !ended { process.signal(SIGKILL); _ = process.waitUntilExit() }
        return process.exitStatus
    }

    func remove() { scratch.remove() }

    /// One HTTP exchange made by curl: status, body (and the body as JSON when it is).
    struct Answer {
        var status: Int
        var body: String
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
        var error: String? { json?["error"] as? String }
    }

    /// `curl` with `arguments` (a path is made a URL of this server); `body` is sent as JSON.
    func curl(_ method: String = "GET", _ path: String, json body: String? = nil, _ arguments: [String] = []) throws -> Answer {
        var args = ["-sS", "--max-time", "10", "-X", method, "-o", "-", "-w", "\n%{http_code}"]
        if let body { args += ["-H", "Content-Type: application/json", "--data-binary", body] }
        args += arguments + [path.hasPrefix("http") ? path : base + path]
        let run = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), args, timeLimit: 20)
        var lines = run.standardOutput.components(separatedBy: "\n")
        let status = Int(lines.removeLast()) ?? -1
        return Answer(status: status, body: lines.joined(separator: "\n"))
    }

    /// The state as `GET /api/state` gives it.
    func state() throws -> [String: Any] {
        let answer = try curl("GET", "/api/state")
        guard answer.status == 200, let json = answer.json else { throw ServeError(log: "GET /api/state: \(answer.status) \(answer.body)") }
        return json
    }

    /// Channel `number`'s object of the state.
    func channel(_ number: Int) throws -> [String: Any] {
        let channels = try state()["channels"] as? [[String: Any]] ?? []
        return channels.first { $0["channel"] as? Int == number } ?? [:]
    }
}

/// The base of a test class whose tests share one `ServedModule` (`module`), started before the class's
/// first test and stopped after its last; each test is skipped, saying why, where a tool it needs is missing.
class ServedModuleTestCase: XCTestCase {
    /// The tools the tests need (a name on the PATH, or a path), each with what a test skipped for want of it says.
    class var requiredTools: [(tool: String, missing: String)] { [("/usr/bin/curl", "curl is not installed (Scripts/setup installs it)")] }
    /// What serve is started with besides `--http`.
    class var serveArguments: [String] { [] }

    /// Each class's module (nil where it did not start).
    nonisolated(unsafe) private static var modules: [ObjectIdentifier: ServedModule] = [:]
    var module: ServedModule { Self.modules[ObjectIdentifier(Self.self)]! }

    override class func setUp() {
        super.setUp()
        if requiredTools.allSatisfy({ toolExists($0.tool) }) {
            modules[ObjectIdentifier(self)] = try? ServedModule(extra: serveArguments)
        }
    }

    override class func tearDown() {
        if let module = modules.removeValue(forKey: ObjectIdentifier(self)) {
            _ = module.stop()
            module.remove()
        }
        super.tearDown()
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        for (tool, missing) in Self.requiredTools where !toolExists(tool) { throw XCTSkip(missing) }
        let started = Self.modules[ObjectIdentifier(Self.self)]
        XCTAssertNotNil(started, "serve --http did not start")
        try XCTSkipIf(started == nil)
    }
}

/// Whether `tool` is on the PATH (or at that path).
func toolExists(_ tool: String) -> Bool {
    if tool.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: tool) }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
}
