import AudioFiles
import Foundation
import TestSupport
import XCTest

/// The web page of `serve --http` in a real headless Chromium: `--dump-dom` shows the state; driven
/// through the DevTools protocol (Scripts/web-page-check.py), picking an instrument on a strip changes
/// what `GET /api/state` says, and a change made by another client shows on the page within 100 ms.
/// Skipped where chromium or python3 is missing.
final class WebPageTests: ServedModuleTestCase {
    static let checker = ServedModule.packageRoot.appendingPathComponent("Scripts/web-page-check.py").path

    override class var requiredTools: [(tool: String, missing: String)] {
        [("chromium", "chromium is not installed (Scripts/setup installs it)"),
         ("python3", "python3 is not installed (it drives chromium)")] + super.requiredTools
    }

    override class var serveArguments: [String] { ["--shell", "0", "--osc", "0"] }

    private func chromiumPath() -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/chromium" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "chromium"
    }

    /// The page after its scripts ran, as chromium serialises it: each strip's picker shows the preset
    /// its channel plays, by the name the font gives it.
    func testDumpDOMShowsTheChannelsInstruments() throws {
        XCTAssertEqual(try module.curl("POST", "/api/channels/2", json: #"{"program": 24}"#).status, 200)
        let profile = module.directory.appendingPathComponent("dump-profile").path
        let run = try runCommand(URL(fileURLWithPath: chromiumPath()),
                                 ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                                  "--virtual-time-budget=3000", "--dump-dom", module.base + "/"], timeLimit: 60)
        XCTAssertEqual(run.status, 0, run.standardError)
        let dom = run.standardOutput
        XCTAssertEqual(dom.components(separatedBy: "class=\"strip").count - 1, 16, "16 channel strips")
        XCTAssertTrue(dom.contains("000:024 Nylon Guitar"), "channel 2's preset: \(dom.prefix(2000))")
        XCTAssertTrue(dom.contains("000:019 Church Organ"), "the font's presets are offered")
        XCTAssertTrue(dom.contains(">Standard<") || dom.contains(" Standard<"), "the percussion bank too")
    }

    private func check(_ arguments: [String]) throws -> CommandRun {
        try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.checker] + arguments, timeLimit: 60)
    }

    /// The page's own instrument picker, used as a person would: the server's state follows.
    func testChoosingAnInstrumentOnThePageChangesTheState() throws {
        XCTAssertEqual(try module.curl("POST", "/api/channels/5", json: #"{"program": 0}"#).status, 200)
        let run = try check(["choose", module.base + "/", "5", "Cello"])
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), "000:042 Cello")
        let channel = try module.channel(5)
        XCTAssertEqual(channel["program"] as? Int, 42)
        XCTAssertEqual(channel["name"] as? String, "Cello")
    }

    /// A change another HTTP client makes (Python's http.client, timed from the request's send) reaches
    /// the open page through /api/events within 100 ms.
    func testAChangeFromAnotherClientShowsOnThePageWithin100Milliseconds() throws {
        XCTAssertEqual(try module.curl("POST", "/api/channels/9", json: #"{"program": 0}"#).status, 200)
        let run = try check(["watch", module.base + "/", "9", "Trumpet", "--post", "/api/channels/9", #"{"program": 56}"#])
        XCTAssertEqual(run.status, 0, run.standardError)
        let milliseconds = try XCTUnwrap(Double(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), run.standardOutput)
        print("a channel change reached the page in \(milliseconds) ms")
        XCTAssertLessThan(milliseconds, 100)
    }

    /// A FluidSynth shell line (`prog`, 0-based channels) from a plain TCP client shows on the page's
    /// strip within 100 ms of being sent.
    func testAShellChangeShowsOnThePageWithin100Milliseconds() throws {
        let port = try XCTUnwrap(module.port(ofFace: "FluidSynth shell"), module.log)
        XCTAssertEqual(try module.curl("POST", "/api/channels/7", json: #"{"program": 0}"#).status, 200)
        let run = try check(["watch", module.base + "/", "7", "Flute", "--tcp", "\(port)", "prog 6 73"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let milliseconds = try XCTUnwrap(Double(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), run.standardOutput)
        print("a shell prog reached the page in \(milliseconds) ms")
        XCTAssertLessThan(milliseconds, 100)
        XCTAssertEqual(try module.channel(7)["name"] as? String, "Flute")
    }

    /// An OSC message from liblo's oscsend shows on the page within 100 ms (oscsend's start included).
    func testAnOSCChangeShowsOnThePageWithin100Milliseconds() throws {
        guard toolExists("oscsend") else { throw XCTSkip("oscsend is not installed (liblo-tools; Scripts/setup installs it)") }
        let port = try XCTUnwrap(module.port(ofFace: "OSC"), module.log)
        XCTAssertEqual(try module.curl("POST", "/api/channels/6", json: #"{"program": 0}"#).status, 200)
        let run = try check(["watch", module.base + "/", "6", "Clarinet", "--", "oscsend", "127.0.0.1", "\(port)",
                             "/seqplay/channel/6/program", "i", "71"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let milliseconds = try XCTUnwrap(Double(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), run.standardOutput)
        print("an OSC program change reached the page in \(milliseconds) ms")
        XCTAssertLessThan(milliseconds, 100)
    }

    /// Notes a network MIDI peer plays (a song sent by `seqplay --network-connect`) light their channels'
    /// strips and move the strip meters and the output's meter (the WebSocket's notes and levels).
    func testNotesFromANetworkPeerMoveTheMeters() throws {
        let song = ServedModule.packageRoot.appendingPathComponent("Songs/bach-prelude-c.mid").path
        let moving = "[...document.querySelectorAll('.strip .note')].some(n => n.classList.contains('lit'))"
            + " && [...document.querySelectorAll('.strip .meter div')].some(d => parseFloat(d.style.width) > 0)"
            + " && parseFloat(document.querySelector('#master-meter div').style.width) > 0"
        let run = try check(["until", module.base + "/", moving, "--", seqplayBinary.path, song,
                             "--network-connect", "127.0.0.1:\(module.networkPort)", "--end", "3"])
        XCTAssertEqual(run.status, 0, run.standardError + module.log)
    }

    /// Notes sent through the faces (the shell's `noteon`, OSC's `/seqplay/channel/N/note`) light their strip and
    /// move its meter, as an input's notes do.
    func testNotesFromTheShellAndOSCMoveTheStripMeters() throws {
        let shell = try XCTUnwrap(module.port(ofFace: "FluidSynth shell"), module.log)
        func moving(_ strip: Int) -> String {
            "document.querySelectorAll('.strip')[\(strip)].querySelector('.note').classList.contains('lit')"
                + " && parseFloat(document.querySelectorAll('.strip')[\(strip)].querySelector('.meter div').style.width) > 0"
        }
        let fromShell = try check(["until", module.base + "/", moving(11), "--tcp", "\(shell)", "noteon 11 64 100"])
        XCTAssertEqual(fromShell.status, 0, fromShell.standardError + module.log)
        guard toolExists("oscsend") else { throw XCTSkip("oscsend is not installed (liblo-tools; Scripts/setup installs it)") }
        let osc = try XCTUnwrap(module.port(ofFace: "OSC"), module.log)
        let fromOSC = try check(["until", module.base + "/", moving(12), "--", "oscsend", "127.0.0.1", "\(osc)",
                                 "/seqplay/channel/13/note", "ii", "67", "90"])
        XCTAssertEqual(fromOSC.status, 0, fromOSC.standardError + module.log)
        for (channel, key) in [(12, 64), (13, 67)] {
            let off = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["oscsend", "127.0.0.1", "\(osc)",
                                     "/seqplay/channel/\(channel)/note", "ii", "\(key)", "0"], timeLimit: 10)
            XCTAssertEqual(off.status, 0, off.standardError)
        }
    }

    /// Choosing an instrument on the page changes what the next note sounds like: the same note, held 1.2 s
    /// through the shell (a plain TCP client), sustains after picking Church Organ and decays after picking
    /// Grand Piano, in what serve recorded. A serve of its own, so the recording holds these notes only.
    func testTheNextNoteSoundsAsTheInstrumentChosenOnThePage() throws {
        let own = try ServedModule(extra: ["--shell", "0", "--no-reverb", "--no-chorus"])
        defer { own.remove() }
        let shell = try XCTUnwrap(own.port(ofFace: "FluidSynth shell"), own.log)
        let note = "import socket, time; s = socket.create_connection(('127.0.0.1', \(shell)));"
            + " s.sendall(b'noteon 0 60 100\\n'); time.sleep(1.2); s.sendall(b'noteoff 0 60\\n'); time.sleep(0.6)"
        for instrument in ["Church Organ", "Grand Piano"] {
            let chosen = try check(["choose", own.base + "/", "1", instrument])
            XCTAssertEqual(chosen.status, 0, chosen.standardError)
            let played = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", note], timeLimit: 20)
            XCTAssertEqual(played.status, 0, played.standardError)
        }
        XCTAssertEqual(own.stop(), 0, own.log)
        let audio = try AudioFileReader(path: own.directory.appendingPathComponent("heard.wav").path).readAll()[0]
        let window = 4800  // 100 ms at 48 kHz
        let levels = stride(from: 0, to: audio.count - window, by: window).map { start in
            (audio[start..<start + window].reduce(0) { $0 + $1 * $1 } / Float(window)).squareRoot()
        }
        // The two notes: runs of windows above -54 dBFS.
        var notes: [[Float]] = []
        for (index, level) in levels.enumerated() where level > 0.002 {
            if index > 0, levels[index - 1] > 0.002 { notes[notes.count - 1].append(level) } else { notes.append([level]) }
        }
        XCTAssertEqual(notes.count, 2, "two notes in the recording: \(levels.map { String(format: "%.3f", $0) })")
        guard notes.count == 2, notes.allSatisfy({ $0.count >= 11 }) else { return }
        // How much of its start a note keeps 0.8-1.1 s in.
        let kept = notes.map { ($0[8...10].reduce(0, +) / 3) / $0[0...2].max()! }
        print("level kept after 1 s: organ \(kept[0]), piano \(kept[1])")
        XCTAssertGreaterThan(kept[0], 0.7, "the organ sustains")
        XCTAssertLessThan(kept[1], 0.5, "the piano decays")
    }

    /// The page shows the inputs, the strips' volumes and mutes as the state has them.
    func testThePageShowsVolumesAndMutes() throws {
        XCTAssertEqual(try module.curl("POST", "/api/channels/11", json: #"{"volume": 33, "mute": true}"#).status, 200)
        let run = try check(["dump", module.base + "/"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let view = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(view["connection"] as? String, "live")
        let channels = try XCTUnwrap(view["channels"] as? [[String: Any]])
        XCTAssertEqual(channels.count, 16)
        XCTAssertEqual(channels[10]["volume"] as? Int, 33)
        XCTAssertEqual(channels[10]["mute"] as? Bool, true)
        XCTAssertEqual(channels[0]["options"] as? Int, 26, "every preset of the font is offered")
    }
}
