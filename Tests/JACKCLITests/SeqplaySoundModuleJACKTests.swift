import AudioFiles
import Foundation
import JACKTestSupport
import TestSupport
import XCTest

/// `serve -a jack` as a sound module (a real jackd, dummy driver): recording on request through OSC
/// (`oscsend /seqplay/record s FILE`, `/seqplay/record/stop`) while notes arrive through the
/// FluidSynth shell (a plain TCP client, python3's socket): the file holds the notes.
final class SeqplaySoundModuleJACKTests: XCTestCase {
    private func freePort(_ type: String) throws -> String {
        try runShell("python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_\(type)); s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])'")
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends shell lines with a plain TCP client and returns what came back before `echo .` did.
    private func shell(_ port: String, _ lines: [String]) throws -> String {
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=5)
            s.sendall(sys.argv[1].encode())
            out = b""
            while not out.endswith(b".\\n"):
                data = s.recv(65536)
                if not data: break
                out += data
            print(out.decode()[:-2], end="")
            """
        let run = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, lines.joined(separator: "\n") + "\necho .\n"], timeLimit: 10)
        return run.standardOutput
    }

    func testRecordingOnRequestHoldsTheNotesPlayed() throws {
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/oscsend") else { throw XCTSkip("oscsend is not installed (liblo-tools)") }
        let scratch = try ScratchDirectory(prefix: "jack-record")
        defer { scratch.remove() }
        let server = try JACKTestServer()
        let shellPort = try freePort("STREAM"), oscPort = try freePort("DGRAM"), network = try freePort("DGRAM")
        let serve = try ChildProcess(seqplayURL.path, ["serve", "--network", "--listen", "127.0.0.1:\(network)", "-a", "jack", "--jack-connect", "none",
                                                       "--shell", shellPort, "--osc", oscPort, "--no-state", "--duration", "30"] + font,
                                     environment: ProcessInfo.processInfo.environment.merging(server.environment) { $1 },
                                     standardInput: .null, standardOutput: .capture, standardError: .capture)
        defer { if serve.isRunning { serve.signal(SIGKILL); serve.waitUntilExit() } }
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? shell(shellPort, ["echo up"]))?.contains("up") == true
            if !ready { usleep(50_000) }
        }
        XCTAssertTrue(ready, serve.standardErrorText)
        let take = scratch.path("take.wav")
        let oscsend = URL(fileURLWithPath: "/usr/bin/oscsend")
        XCTAssertEqual(try runCommand(oscsend, ["localhost", oscPort, "/seqplay/record", "s", take]).status, 0)
        usleep(200_000)
        XCTAssertEqual(try shell(shellPort, ["noteon 0 60 120"]), "")
        usleep(500_000)
        XCTAssertEqual(try shell(shellPort, ["noteoff 0 60"]), "")
        usleep(200_000)
        XCTAssertEqual(try runCommand(oscsend, ["localhost", oscPort, "/seqplay/record", "s", scratch.path("second.wav")]).status, 0)
        XCTAssertEqual(try runCommand(oscsend, ["localhost", oscPort, "/seqplay/record/stop"]).status, 0)
        usleep(300_000)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        XCTAssertTrue(serve.standardErrorText.contains("already recording to \(take)"), serve.standardErrorText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path("second.wav")))
        let reader = try AudioFileReader(path: take)
        let frames = try reader.readAll()
        XCTAssertGreaterThan(reader.frameCount, 40_000, "about 0.9 s recorded")
        XCTAssertGreaterThan(frames[0].map(abs).max() ?? 0, 0.01, "the note is in the take")
    }
}
