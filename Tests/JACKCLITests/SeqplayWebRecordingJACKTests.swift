import AudioFiles
import Foundation
import JACKTestSupport
import TestSupport
import XCTest

/// `serve -a jack --http` (a real jackd, dummy driver): the page's record button's requests, sent by curl
/// (`POST /api/recording {"name": "take.wav"}`, then `/api/recording/stop`), record to the state
/// directory's `recordings/` what is played meanwhile (a note through the FluidSynth shell).
final class SeqplayWebRecordingJACKTests: JACKServerTestCase {
    func testRecordingStartedOverHTTPHoldsTheNotePlayed() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { throw XCTSkip("curl is not installed") }
        let server = try JACKTestServer()
        let serve = try startServe(["-a", "jack", "--jack-connect", "none", "--http", "127.0.0.1:0", "--shell", "0", "--duration", "30"] + font,
                                   server: server, environment: ["XDG_STATE_HOME": scratch.path("state")])
        var http: String?, shell: String?
        for _ in 0..<200 where http == nil || shell == nil {
            let log = serve.standardErrorText
            http = log.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression).map { String(log[$0]) }
            shell = log.range(of: #"shell on 127\.0\.0\.1:\d+"#, options: .regularExpression).map { String(log[$0].split(separator: ":").last!) }
            if http == nil || shell == nil { usleep(50_000) }
        }
        let base = try XCTUnwrap(http, serve.standardErrorText), shellPort = try XCTUnwrap(shell)
        func post(_ path: String, _ body: String) throws -> String {
            try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "-H", "Content-Type: application/json", "--data-binary", body,
                                                                     base + path], timeLimit: 10).standardOutput
        }
        let take = scratch.path("state") + "/seqplay/recordings/take.wav"
        // The server's frames as a client counts them: on a loaded host its cycles lag the wall clock.
        let clock = try JACKTestRecorder(name: "clock", serverName: server.name, capacity: 48_000 * 120)
        let beforeStart = clock.frameCount
        XCTAssertTrue(try post("/api/recording", #"{"name": "take.wav"}"#).contains(#""active":true"#))
        let started = clock.frameCount
        usleep(200_000)
        let note = "import socket, time; s = socket.create_connection(('127.0.0.1', \(shellPort)));"
            + " s.sendall(b'noteon 0 60 120\\n'); time.sleep(0.5); s.sendall(b'noteoff 0 60\\n'); time.sleep(0.2)"
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", note], timeLimit: 10).status, 0)
        let beforeStop = clock.frameCount
        XCTAssertTrue(try post("/api/recording/stop", "{}").contains(#""active":false"#))
        let stopped = clock.frameCount
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        let reader = try AudioFileReader(path: take)
        print("take: \(reader.frameCount) frames; the server ran \(beforeStop - started) frames between the answers, \(stopped - beforeStart) around the requests")
        XCTAssertGreaterThanOrEqual(reader.frameCount, Int64(beforeStop - started - 512), "the take holds every cycle between the start and the stop")
        XCTAssertLessThanOrEqual(reader.frameCount, Int64(stopped - beforeStart + 512), "and nothing more")
        XCTAssertGreaterThan(try reader.readAll()[0].map(abs).max() ?? 0, 0.01, "the note is in the take")
    }
}
