import Foundation
import TestSupport
import XCTest

/// A `seqplay serve --network -o FILE --http 127.0.0.1:0` running for a test class (recording on the
/// system clock, so no sound card is needed), and `curl` to talk to it: the real clients of the API.
final class ServedModule {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let font = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path

    let process: ChildProcess
    let directory: URL
    let errorLog: URL
    /// http://127.0.0.1:PORT
    let base: String
    let port: Int
    /// The network MIDI session's control port (127.0.0.1).
    let networkPort: Int

    /// Starts serve with `extra` arguments (and `--http ADDRESS`, default 127.0.0.1:0); waits for its
    /// "HTTP control at" line.
    init(http: String = "127.0.0.1:0", extra: [String] = [], environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        errorLog = directory.appendingPathComponent("serve.err")
        let networkPort = Int.random(in: 15_000..<20_000) * 2
        self.networkPort = networkPort
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        env["XDG_STATE_HOME"] = env["XDG_STATE_HOME"] ?? directory.appendingPathComponent("state").path
        env["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        process = try ChildProcess(seqplayBinary.path,
                                   ["serve", "--network", "--listen", "127.0.0.1:\(networkPort)", "--no-alsa-ports",
                                    "--sf2", Self.font, "-o", directory.appendingPathComponent("heard.wav").path,
                                    "--http", http] + extra,
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

    func remove() { try? FileManager.default.removeItem(at: directory) }

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

/// Whether `tool` is on the PATH (or at that path).
func toolExists(_ tool: String) -> Bool {
    if tool.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: tool) }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
}
