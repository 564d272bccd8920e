import AudioFiles
import Foundation
import TestSupport
import XCTest

/// Songs on request in `serve` (`--song-dir`, the media library): played through the first sampler by
/// curl's POST /api/song, the FluidSynth shell's `play` (a plain TCP client) and liblo's `oscsend`; the
/// state shows the song, stop ends its notes, the recording has them, and any other path is refused.
final class SongOnRequestTests: XCTestCase {
    static let songs = ServedModule.packageRoot.appendingPathComponent("Songs").path
    static let bach = songs + "/bach-prelude-c.mid"
    static let canon = songs + "/pachelbel-canon.mid"

    override func setUpWithError() throws {
        guard toolExists("/usr/bin/curl") else { throw XCTSkip("curl is not installed (Scripts/setup installs it)") }
        guard toolExists("python3") else { throw XCTSkip("python3 is not installed (the shell's TCP client)") }
    }

    private func served(_ extra: [String] = []) throws -> ServedModule {
        try ServedModule(extra: ["--shell", "0", "--osc", "0", "--song-dir", Self.songs] + extra)
    }

    /// Sends `lines` to the FluidSynth shell on `port` (one connection, `pause` s after each) and returns what it answered.
    private func shell(_ port: Int, _ lines: [String], pause: Double = 0.2) throws -> String {
        let script = "import socket, sys, time\ns = socket.create_connection(('127.0.0.1', \(port)))\n"
            + "for line in sys.argv[1:]:\n    s.sendall(line.encode() + b'\\n'); time.sleep(\(pause))\n"
            + "s.sendall(b'quit\\n'); s.settimeout(2); data = b''\n"
            + "while not data.endswith(b'cheers!\\n'):\n    chunk = s.recv(65536)\n    if not chunk: break\n    data += chunk\n"
            + "sys.stdout.write(data.decode())\n"
        let run = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script] + lines, timeLimit: 20)
        XCTAssertEqual(run.status, 0, run.standardError)
        return run.standardOutput
    }

    private func voices(_ port: Int) throws -> Int {
        let answer = try shell(port, ["voice_count"], pause: 0)
        return Int(answer.components(separatedBy: "\n").first { $0.hasPrefix("voice_count: ") }?.dropFirst(13) ?? "") ?? -1
    }

    private func song(_ module: ServedModule) throws -> [String: Any]? { try module.state()["song"] as? [String: Any] }

    /// curl plays a song: the answer's state shows it playing, the sampler sounds, stop ends its notes,
    /// and serve's recording has the song (nothing else plays) and ends in silence.
    func testCurlPlaysASongStopEndsItsNotesAndTheRecordingHasIt() throws {
        let module = try served()
        defer { module.remove() }
        let shellPort = try XCTUnwrap(module.port(ofFace: "FluidSynth shell"), module.log)
        let play = try module.curl("POST", "/api/song", json: #"{"path": "\#(Self.bach)"}"#)
        XCTAssertEqual(play.status, 200, play.body)
        let playing = play.json?["song"] as? [String: Any]
        XCTAssertEqual(playing?["path"] as? String, Self.bach)
        XCTAssertEqual(playing?["playing"] as? Bool, true)
        usleep(1_500_000)
        XCTAssertGreaterThan(try voices(shellPort), 0, "the song sounds")
        let stop = try module.curl("POST", "/api/song/stop", json: "{}")
        XCTAssertEqual(stop.status, 200, stop.body)
        XCTAssertEqual((stop.json?["song"] as? [String: Any])?["playing"] as? Bool, false)
        var left = -1
        for _ in 0..<30 {
            left = try voices(shellPort)
            if left == 0 { break }
            usleep(100_000)
        }
        XCTAssertEqual(left, 0, "the song's notes ended")
        usleep(500_000)
        XCTAssertEqual(module.stop(), 0, module.log)
        let audio = try AudioFileReader(path: module.directory.appendingPathComponent("heard.wav").path).readAll()[0]
        let window = 4800
        let levels = stride(from: 0, to: audio.count - window, by: window).map { start in
            (audio[start..<start + window].reduce(0) { $0 + $1 * $1 } / Float(window)).squareRoot()
        }
        XCTAssertGreaterThan(levels.filter { $0 > 0.002 }.count, 5, "the song is in the recording: \(levels)")
        XCTAssertLessThan(levels.suffix(3).max() ?? 1, 0.0005, "silence after the stop: \(levels.suffix(10))")
    }

    /// The shell's `play FILE` and `player_stop`, and OSC's /seqplay/song and /seqplay/song/stop from oscsend.
    func testTheShellAndOSCPlayAndStopSongs() throws {
        guard toolExists("oscsend") else { throw XCTSkip("oscsend is not installed (liblo-tools; Scripts/setup installs it)") }
        let module = try served()
        defer {
            _ = module.stop()
            module.remove()
        }
        let shellPort = try XCTUnwrap(module.port(ofFace: "FluidSynth shell"), module.log)
        let oscPort = try XCTUnwrap(module.port(ofFace: "OSC"), module.log)
        XCTAssertNotEqual(oscPort, 0, "--osc 0 says the port it got")
        let answer = try shell(shellPort, ["play \(Self.canon)", "voice_count"], pause: 1.2)
        XCTAssertFalse(answer.contains("not"), answer)
        XCTAssertTrue(answer.hasPrefix("voice_count: ") && !answer.hasPrefix("voice_count: 0\n"), answer)
        XCTAssertEqual(try song(module)?["path"] as? String, Self.canon)
        XCTAssertEqual(try song(module)?["playing"] as? Bool, true)
        XCTAssertEqual(try shell(shellPort, ["player_stop"]), "cheers!\n")
        XCTAssertEqual(try song(module)?["playing"] as? Bool, false)

        func osc(_ arguments: [String]) throws {
            let run = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["oscsend", "127.0.0.1", "\(oscPort)"] + arguments, timeLimit: 10)
            XCTAssertEqual(run.status, 0, run.standardError)
        }
        func waitFor(_ what: String, _ condition: () throws -> Bool) throws {
            for _ in 0..<50 where try !condition() { usleep(20_000) }
            XCTAssertTrue(try condition(), what)
        }
        try osc(["/seqplay/song", "s", Self.bach])
        try waitFor("OSC started the song") { try song(module)?["path"] as? String == Self.bach && song(module)?["playing"] as? Bool == true }
        try osc(["/seqplay/song/stop"])
        try waitFor("OSC stopped the song") { try song(module)?["playing"] as? Bool == false }
        XCTAssertTrue(module.process.isRunning, module.log)
    }

    /// `--song-dir` must name a directory: anything else is a bad command line (64), said in one line.
    func testASongDirectoryThatIsNoneIsABadCommandLine() throws {
        for bad in ["/no/such/dir", Self.bach] {
            let run = try runSeqplay(["serve", "--network", "--sf2", ServedModule.font, "-o", "/tmp/never.wav", "--http", "0",
                                      "--song-dir", bad], timeLimit: 20)
            XCTAssertEqual(run.status, 64, "\(bad): \(run.standardError)")
            XCTAssertTrue(run.standardError.contains("--song-dir takes a directory"), run.standardError)
        }
    }

    /// A song that ends by itself shows `playing: false` in the state (a half-second note, in a second --song-dir).
    func testASongThatEndsShowsItselfStopped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-songs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // SMF format 0, 96 ticks a quarter at 120 BPM: C4 for 96 ticks (0.5 s).
        let bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, 12,
                             0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0, 0x00, 0xFF, 0x2F, 0x00]
        let short = directory.appendingPathComponent("short.mid").path
        try Data(bytes).write(to: URL(fileURLWithPath: short))
        let module = try served(["--song-dir", directory.path])
        defer {
            _ = module.stop()
            module.remove()
        }
        let answer = try module.curl("POST", "/api/song", json: #"{"path": "\#(short)"}"#)
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertEqual((answer.json?["song"] as? [String: Any])?["playing"] as? Bool, true)
        var playing: Bool?
        for _ in 0..<40 {
            playing = try song(module)?["playing"] as? Bool
            if playing == false { break }
            usleep(50_000)
        }
        XCTAssertEqual(playing, false, "the song ended by itself within 2 s")
        XCTAssertEqual(try song(module)?["path"] as? String, short)
    }

    /// A path outside the library and the song directories is refused with one error, whatever its tricks;
    /// a song the media library lists plays without a song directory.
    func testOnlyTheLibrarysSongsAndSongDirectoryFilesPlay() throws {
        let module = try served()
        defer {
            _ = module.stop()
            module.remove()
        }
        let outside = module.directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let copy = outside.appendingPathComponent("ode.mid").path
        try FileManager.default.copyItem(atPath: Self.songs + "/beethoven-ode-to-joy.mid", toPath: copy)
        let link = module.directory.appendingPathComponent("link.mid").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/passwd")
        for path in ["/etc/passwd", Self.songs + "/../Package.swift", Self.songs + "/../Songs/../README.md", copy, link,
                     Self.songs + "/no-such.mid", Self.songs + "/README.md"] {
            let answer = try module.curl("POST", "/api/song", json: #"{"path": "\#(path)"}"#)
            XCTAssertEqual(answer.status, 400, "\(path): \(answer.body)")
            XCTAssertNotNil(answer.error, path)
            XCTAssertFalse(answer.body.contains("root:"), path)
        }
        XCTAssertNil(try song(module), "nothing plays")
        // The library (XDG_DATA_HOME as serve has it) lists the copy: now it plays.
        let added = try runSeqplay(["library", "add", outside.path],
                                   environment: ["XDG_DATA_HOME": module.directory.appendingPathComponent("data").path], timeLimit: 30)
        XCTAssertEqual(added.status, 0, added.standardError)
        let listed = try module.curl("GET", "/api/songs")
        XCTAssertTrue(listed.body.contains("ode.mid"), listed.body)
        let answer = try module.curl("POST", "/api/song", json: #"{"path": "\#(copy)"}"#)
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertEqual(try song(module)?["playing"] as? Bool, true)
    }
}
