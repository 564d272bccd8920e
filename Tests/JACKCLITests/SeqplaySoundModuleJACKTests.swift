import AudioFiles
import Foundation
import JACKTestSupport
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `serve -a jack` as a sound module (a real jackd, dummy driver): recording on request through OSC
/// (`oscsend /seqplay/record s FILE`, `/seqplay/record/stop`) while notes arrive through the
/// FluidSynth shell (a plain TCP client): the file holds the notes.
final class SeqplaySoundModuleJACKTests: JACKServerTestCase {
    /// Sends shell lines with a plain TCP client and returns what came back before `echo .` did.
    private func shell(_ port: UInt16, _ lines: [String]) throws -> String {
        let answer = try LineClient(port: port, timeout: 0, quiet: 5).ask(lines.joined(separator: "\n") + "\necho .", until: ".\n")
        guard answer.hasSuffix(".\n") else { throw CocoaError(.fileReadCorruptFile, userInfo: ["answer": answer]) }
        return String(answer.dropLast(2))
    }

    func testRecordingOnRequestHoldsTheNotesPlayed() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/oscsend") else { throw XCTSkip("oscsend is not installed (liblo-tools)") }
        let server = try JACKTestServer()
        let datagram = Int32(SOCK_DGRAM.rawValue)
        let shellPort = freePort(), oscPort = "\(freePort(datagram))", network = freePort(datagram)
        let serve = try startServe(["--network", "--listen", "127.0.0.1:\(network)", "-a", "jack", "--jack-connect", "none",
                                    "--shell", "\(shellPort)", "--osc", oscPort, "--no-state", "--duration", "30"] + font, server: server)
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? shell(shellPort, ["echo up"]))?.contains("up") == true
            if !ready { usleep(50_000) }
        }
        XCTAssertTrue(ready, serve.standardErrorText)
        let take = scratch.path("take.wav")
        let oscsend = URL(fileURLWithPath: "/usr/bin/oscsend")
        // The server's frames as a client counts them: on a loaded host its cycles lag the wall clock.
        let clock = try JACKTestRecorder(name: "clock", serverName: server.name, capacity: 48_000 * 120)
        let beforeStart = clock.frameCount
        XCTAssertEqual(try runCommand(oscsend, ["localhost", oscPort, "/seqplay/record", "s", take]).status, 0)
        usleep(200_000)
        XCTAssertEqual(try shell(shellPort, ["noteon 0 60 120"]), "")
        let noteOn = clock.frameCount
        usleep(500_000)
        XCTAssertEqual(try shell(shellPort, ["noteoff 0 60"]), "")
        let held = clock.frameCount - noteOn
        usleep(200_000)
        XCTAssertEqual(try runCommand(oscsend, ["localhost", oscPort, "/seqplay/record", "s", scratch.path("second.wav")]).status, 0)
        XCTAssertEqual(try runCommand(oscsend, ["localhost", oscPort, "/seqplay/record/stop"]).status, 0)
        usleep(300_000)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        XCTAssertTrue(serve.standardErrorText.contains("already recording to \(take)"), serve.standardErrorText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path("second.wav")))
        let served = clock.frameCount - beforeStart
        let reader = try AudioFileReader(path: take)
        let frames = try reader.readAll()
        print("take: \(reader.frameCount) frames; the note held \(held) frames of the server's, which ran \(served) from before the start to the end")
        XCTAssertGreaterThan(reader.frameCount, Int64(held - 512), "the take spans the held note")
        XCTAssertLessThanOrEqual(reader.frameCount, Int64(served + 512), "the take holds nothing from before its start")
        XCTAssertGreaterThan(frames[0].map(abs).max() ?? 0, 0.01, "the note is in the take")
    }
}
