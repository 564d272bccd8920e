import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `serve` as a sound module driven by real clients: a plain TCP client speaking FluidSynth's shell
/// (the same lines sent to a real `fluidsynth -s` give the same answers), liblo's `oscsend` and
/// `oscdump`, a change through one face seen by the other within 100 ms, hostile input on each
/// face, and the state file across restarts. No sound card: serve records to a file on a clock.
final class SoundModuleFacesTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let font = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path

    private func tool(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw XCTSkip("\(name) is not installed (Scripts/setup installs it)")
    }

    /// A real `fluidsynth -s` with the test font (killed at teardown) and `seqplay serve --shell`, each on a free
    /// port, and a line client of each: the same lines sent to both must get the same answers.
    private func shells(_ scratch: ScratchDirectory) throws -> (theirs: LineClient, ours: LineClient, serve: ChildProcess) {
        let fluidsynth = try tool("fluidsynth")
        let fluidPort = freePort(), ourPort = freePort()
        let reference = try ChildProcess(fluidsynth, ["-si", "-a", "file", "-o", "audio.file.name=/dev/null", "-o", "shell.port=\(fluidPort)",
                                                      Self.font], standardInput: .null, standardOutput: .capture, standardError: .capture)
        addTeardownBlock { reference.signal(SIGKILL); reference.waitUntilExit() }
        let serve = try startServe(scratch, ["--shell", "\(ourPort)", "--no-state"])
        // fluidsynth's first: seqplay (started last) has that long more to open its shell.
        let theirs = try LineClient(port: fluidPort)
        return (theirs, try LineClient(port: ourPort), serve)
    }

    /// `seqplay serve` with its shell face on a free port (no state file), a line client of it, and the port.
    private func startShell(_ scratch: ScratchDirectory) throws -> (serve: ChildProcess, client: LineClient, port: UInt16) {
        let port = freePort()
        let serve = try startServe(scratch, ["--shell", "\(port)", "--no-state"])
        return (serve, try LineClient(port: port), port)
    }

    /// `seqplay serve` recording to a scratch file, with the faces given.
    private func startServe(_ scratch: ScratchDirectory, _ flags: [String], duration: Int = 60) throws -> ChildProcess {
        let network = freePort(Int32(SOCK_DGRAM.rawValue))
        let child = try ChildProcess(seqplayBinary.path, ["serve", "--network", "--listen", "127.0.0.1:\(network)", "--sf2", Self.font,
                                                          "-o", scratch.path("heard-\(UUID().uuidString).wav"), "--duration", "\(duration)"] + flags,
                                     environment: ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": scratch.path("xdg")]) { $1 },
                                     standardInput: .null, standardOutput: .capture, standardError: .capture)
        addTeardownBlock {
            if child.isRunning { child.signal(SIGKILL); child.waitUntilExit() }
        }
        return child
    }

    func testShellAnswersAsFluidSynthDoes() throws {
        let scratch = try ScratchDirectory(prefix: "shell-vs-fluidsynth")
        defer { scratch.remove() }
        let (theirs, ours, serve) = try shells(scratch)
        let lines = ["select 1 1 0 3", "prog 2 40", "prog 0 5", "prog 4 19", "cc 5 0 1", "prog 5 0", "prog 9 1",
                     "select 6 1 128 0", "noteon 0 60 100", "noteoff 0 60", "pitch_bend 0 8192", "cc 3 7 90", "gain 0.5",
                     "reverb on", "rev_setroomsize 0.4", "cho_set_nr 4", "chorus off"]
        // Commands that succeed say nothing: only the echo comes back.
        let batch = lines.joined(separator: "\n") + "\necho done"
        XCTAssertEqual(theirs.ask(batch, until: "done\n"), "done\n")
        XCTAssertEqual(ours.ask(batch, until: "done\n"), "done\n")
        for query in ["channels", "channels -verbose", "inst 1", "fonts"] {
            let expected = theirs.ask(query + "\necho end", until: "end\n")
            let answer = ours.ask(query + "\necho end", until: "end\n")
            XCTAssertGreaterThan(expected.split(separator: "\n").count, 1, query)
            XCTAssertEqual(answer, expected, query)
        }
        XCTAssertTrue(serve.isRunning, serve.standardErrorText)
    }

    /// `load` (with a bank offset), `reload` and the errors for too few arguments answer as a real
    /// `fluidsynth -s` does, byte for byte; `reload` keeps the font's id; range errors name the command.
    func testLoadReloadAndTooFewArgumentsAnswerAsFluidSynthDoes() throws {
        let scratch = try ScratchDirectory(prefix: "shell-load-vs-fluidsynth")
        defer { scratch.remove() }
        let copy = scratch.path("second.sf2")
        try FileManager.default.copyItem(atPath: Self.font, toPath: copy)
        let (theirs, ours, serve) = try shells(scratch)
        XCTAssertEqual(theirs.ask("echo ready", until: "ready\n"), "ready\n")
        XCTAssertEqual(ours.ask("echo ready", until: "ready\n"), "ready\n")
        let lines = ["load \(copy)", "load \(copy) 1 10", "fonts", "reload 1", "reload 2", "fonts", "select 0 3 10 19", "select 1 3 10 40",
                     "channels -verbose", "inst 3",
                     "prog 0", "cc 0 7", "noteon 0 60", "noteoff 0", "pitch_bend 0", "select 0 1 0", "load", "unload", "reload", "inst",
                     "gain", "echo"]
        for line in lines {
            let expected = theirs.ask(line + "\necho end", until: "end\n")
            XCTAssertEqual(ours.ask(line + "\necho end", until: "end\n"), expected, line)
        }
        XCTAssertEqual(theirs.ask("reload 99\necho end", until: "end\n"), "failed to reload the SoundFont\nend\n")
        XCTAssertEqual(ours.ask("reload 99\necho end", until: "end\n"),
                       "failed to reload the SoundFont: no SoundFont with id 99 is loaded\nend\n")
        // A font whose file went bad is kept as it was (and playing) when it cannot be loaded again.
        try Data("not a SoundFont".utf8).write(to: URL(fileURLWithPath: copy))
        XCTAssertTrue(ours.ask("reload 2", until: "\n").hasPrefix("failed to reload the SoundFont: cannot load \(copy): "))
        XCTAssertTrue(ours.ask("fonts", until: "seqplay-gm.sf2\n").contains(" 2  \(copy)\n"))
        XCTAssertEqual(ours.ask("prog 0 1000"), "prog: program 1000 is out of range (0-127)\n")
        XCTAssertEqual(ours.ask("cc 0 7 200"), "cc: value 200 is out of range (0-127)\n")
        XCTAssertTrue(serve.isRunning, serve.standardErrorText)
    }

    /// A `load` of a FIFO nobody writes is refused at once, through the shell and OSC, and holds up
    /// no other client meanwhile; a `play` of one in a --song-dir too.
    func testAFIFOIsRefusedAtOnceAndStallsNoFace() throws {
        let oscsend = try tool("oscsend")
        let scratch = try ScratchDirectory(prefix: "fifo")
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path("songs"), withIntermediateDirectories: true)
        let fifo = scratch.path("songs/stuck.sf2"), songFIFO = scratch.path("songs/stuck.mid")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(mkfifo(songFIFO, 0o600), 0)
        let shellPort = freePort(), oscPort = freePort(Int32(SOCK_DGRAM.rawValue))
        let serve = try startServe(scratch, ["--shell", "\(shellPort)", "--osc", "\(oscPort)", "--no-state", "--song-dir", scratch.path("songs")])
        let first = try LineClient(port: shellPort), second = try LineClient(port: shellPort)
        XCTAssertFalse(first.ask("channels", until: "chan 15").isEmpty)
        let started = Date()
        XCTAssertEqual(first.ask("load \(fifo)", until: "\n"),
                       "failed to load the SoundFont: cannot load \(fifo): is a FIFO, not a regular file\n")
        XCTAssertEqual(first.ask("play \(songFIFO)", until: "\n"), "play: cannot play \(songFIFO): is a FIFO, not a regular file\n")
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)", "/seqplay/font/load", "s", fifo]).status, 0)
        XCTAssertTrue(second.ask("prog 0 19\nchannels", until: "chan 15").hasPrefix("chan 0, Church Organ\n"))
        let elapsed = Date().timeIntervalSince(started)
        print(String(format: "FIFO refused, another client answered: %.0f ms", elapsed * 1000))
        XCTAssertLessThan(elapsed, 5)
        XCTAssertEqual(first.ask("fonts", until: "seqplay-gm.sf2\n"), "ID  Name\n 1  \(Self.font)\n")
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 60))
        XCTAssertTrue(serve.standardErrorText.contains("/seqplay/font/load: cannot load \(fifo): is a FIFO, not a regular file"),
                      serve.standardErrorText)
    }

    /// 200 program and volume changes on one connection are queued, not waited for a render block
    /// each; the next query shows the last of them.
    func testAStreamOfProgramChangesIsNotPacedByTheRenderThread() throws {
        let scratch = try ScratchDirectory(prefix: "shell-stream")
        defer { scratch.remove() }
        let (serve, client, _) = try startShell(scratch)
        XCTAssertFalse(client.ask("channels", until: "chan 15").isEmpty)
        let lines = (0..<200).map { $0 % 2 == 0 ? "prog \($0 % 16) \($0 % 128)" : "cc \($0 % 16) 7 \($0 % 128)" } + ["prog 0 40"]
        let started = Date()
        XCTAssertEqual(client.ask(lines.joined(separator: "\n") + "\necho done", until: "done\n"), "done\n")
        let elapsed = Date().timeIntervalSince(started)
        print(String(format: "200 prog/cc lines on one connection: %.0f ms", elapsed * 1000))
        XCTAssertLessThan(elapsed, 1.0)
        XCTAssertTrue(client.ask("channels", until: "chan 15").hasPrefix("chan 0, Violin\n"))
        XCTAssertTrue(serve.isRunning, serve.standardErrorText)
    }

    /// OSC: `T`/`F` mute and unmute, and an address with a newline is logged escaped, never as a line of its own.
    func testOSCTrueFalseMuteAndAForgedLogLine() throws {
        let oscsend = try tool("oscsend")
        let scratch = try ScratchDirectory(prefix: "osc-tf")
        defer { scratch.remove() }
        let shellPort = freePort(), oscPort = freePort(Int32(SOCK_DGRAM.rawValue))
        let serve = try startServe(scratch, ["--shell", "\(shellPort)", "--osc", "\(oscPort)", "--state", scratch.path("s.json")])
        let client = try LineClient(port: shellPort)
        XCTAssertFalse(client.ask("channels", until: "chan 15").isEmpty)
        func send(_ arguments: [String]) throws {
            XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)"] + arguments).status, 0)
        }
        try send(["/seqplay/channel/3/mute", "T"])
        try send(["/seqplay/channel/4/mute", "T"])
        try send(["/seqplay/channel/4/mute", "F"])
        try send(["/seqplay/x\nseqplay: forged line", "i", "1"])
        usleep(300_000)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 60))
        let saved = try JSONDecoder().decode(MuteState.self, from: Data(contentsOf: URL(fileURLWithPath: scratch.path("s.json"))))
        XCTAssertEqual(saved.channels[2].mute, true, "T mutes")
        XCTAssertEqual(saved.channels[3].mute, false, "F unmutes")
        let log = serve.standardErrorText
        XCTAssertFalse(log.split(separator: "\n").contains { $0.hasPrefix("seqplay: forged") }, log)
        XCTAssertTrue(log.contains("/seqplay/x\\nseqplay: forged line"), log)
    }

    private struct MuteState: Decodable {
        struct Channel: Decodable { var mute: Bool }
        var channels: [Channel]
    }

    /// `--state state.json` (relative) keeps the state and the HTTP token in the current directory.
    func testARelativeStateFileKeepsTheTokenBesideIt() throws {
        let scratch = try ScratchDirectory(prefix: "relative-state")
        defer { scratch.remove() }
        let network = freePort(Int32(SOCK_DGRAM.rawValue))
        let run = try runShell("cd '\(scratch.url.path)' && '\(seqplayBinary.path)' serve --network --listen 127.0.0.1:\(network) --sf2 '\(Self.font)' "
                               + "-o heard.wav --duration 2 --state state.json --http 0.0.0.0:0", timeLimit: 60)
        XCTAssertEqual(run.status, 0, run.standardError)
        let here = try XCTUnwrap(run.standardError.range(of: "token kept in ")).upperBound
        let kept = run.standardError[here...].prefix { $0 != ")" }
        XCTAssertEqual(URL(fileURLWithPath: String(kept)).resolvingSymlinksInPath().path,
                       URL(fileURLWithPath: scratch.path("http-token")).resolvingSymlinksInPath().path, run.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path("http-token")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path("state.json")))
    }

    func testHostileShellLinesGetOneAnswerAndTheHostPlaysOn() throws {
        let scratch = try ScratchDirectory(prefix: "shell-hostile")
        defer { scratch.remove() }
        let (serve, client, port) = try startShell(scratch)
        XCTAssertEqual(client.ask("bogus 1 2"), "unknown command: bogus (try help)\n")
        XCTAssertEqual(client.ask("prog 0 99999999999999999999"), "prog: program 99999999999999999999 is not a number\n")
        XCTAssertEqual(client.ask("prog 0 1000"), "prog: program 1000 is out of range (0-127)\n")
        XCTAssertEqual(client.ask("noteon 16 60 100"), "noteon: channel 16 is out of range (0-15)\n")
        XCTAssertEqual(client.ask("gain 1e308"), "gain: value should be between '0' and '5'.\n")
        XCTAssertEqual(client.ask("load /nonexistent/font.sf2").split(separator: "\n").count, 1)
        client.send(String(repeating: "x", count: 1_048_576) + "\n")
        XCTAssertEqual(client.read(), "line too long (over 65536 bytes): ignored\n")
        XCTAssertTrue(client.ask("channels", until: "chan 15").hasPrefix("chan 0, Grand Piano\n"))
        // Connections past 32 are told so and closed; the ones open still work.
        let others = try (0..<31).map { _ in try LineClient(port: port) }
        XCTAssertEqual(others.last?.ask("echo ok"), "ok\n")
        XCTAssertEqual(try LineClient(port: port).read(), "too many connections (32): try again later\n")
        XCTAssertEqual(client.ask("echo still"), "still\n")
        XCTAssertEqual(client.ask("quit"), "cheers!\n")
        XCTAssertTrue(serve.isRunning, serve.standardErrorText)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
    }

    /// oscdump's lines so far (it prints one per message, line-buffered with -L).
    private func waitForLine(in path: String, containing text: String, timeout: Double) -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < timeout {
            if let content = try? String(contentsOfFile: path, encoding: .utf8), content.contains(text) {
                return Date().timeIntervalSince(start)
            }
            usleep(1_000)
        }
        return nil
    }

    func testAChangeThroughOneFaceIsSeenByTheOtherWithin100ms() throws {
        let oscsend = try tool("oscsend"), oscdump = try tool("oscdump")
        let scratch = try ScratchDirectory(prefix: "faces")
        defer { scratch.remove() }
        let shellPort = freePort(), oscPort = freePort(Int32(SOCK_DGRAM.rawValue)), dumpPort = freePort(Int32(SOCK_DGRAM.rawValue))
        let serve = try startServe(scratch, ["--shell", "\(shellPort)", "--osc", "\(oscPort)", "--no-state"])
        let client = try LineClient(port: shellPort)
        XCTAssertFalse(client.ask("channels", until: "chan 15").isEmpty)
        let dumpFile = scratch.path("dump.txt")
        let dump = try ChildProcess(oscdump, ["-L", "\(dumpPort)"], standardInput: .null, standardOutput: .file(dumpFile), standardError: .capture)
        defer { dump.signal(SIGKILL); dump.waitUntilExit() }
        usleep(200_000)

        // The state, asked for over OSC, comes back to oscdump.
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)", "/seqplay/state", "i", "\(dumpPort)"]).status, 0)
        XCTAssertNotNil(waitForLine(in: dumpFile, containing: "/seqplay/state/end", timeout: 3), (try? String(contentsOfFile: dumpFile, encoding: .utf8)) ?? "")
        let state = try String(contentsOfFile: dumpFile, encoding: .utf8)
        XCTAssertTrue(state.contains("/seqplay/channel/10/program iis 0 128 \"Standard\""), state)
        XCTAssertTrue(state.contains("/seqplay/channel/1/program iis 0 0 \"Grand Piano\""), state)

        // Shell → OSC: a subscriber sees the program change within 100 ms.
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)", "/seqplay/subscribe", "i", "\(dumpPort)"]).status, 0)
        usleep(200_000)
        let sent = Date()
        client.send("prog 0 19\n")
        let seen = waitForLine(in: dumpFile, containing: "/seqplay/channel/1/program iis 19 0 \"Church Organ\"", timeout: 2)
        XCTAssertNotNil(seen, (try? String(contentsOfFile: dumpFile, encoding: .utf8)) ?? "")
        let shellToOSC = Date().timeIntervalSince(sent)
        print(String(format: "shell → OSC subscriber: %.1f ms", shellToOSC * 1000))
        XCTAssertLessThan(shellToOSC, 0.1)

        // OSC → shell: oscsend's program change is in the shell's `channels` within 100 ms of oscsend ending.
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)", "/seqplay/channel/2/program", "i", "40"]).status, 0)
        let sentOSC = Date()
        var osctoShell: Double?
        while Date().timeIntervalSince(sentOSC) < 2 {
            if client.ask("channels", until: "chan 15").contains("chan 1, Violin\n") { osctoShell = Date().timeIntervalSince(sentOSC); break }
        }
        XCTAssertNotNil(osctoShell)
        print(String(format: "OSC → shell: %.1f ms", (osctoShell ?? 9) * 1000))
        XCTAssertLessThan(osctoShell ?? 9, 0.1)

        // Volume (f 0-1), mute and gain through OSC show in the subscriber's messages.
        for arguments in [["/seqplay/channel/3/volume", "f", "0.5"], ["/seqplay/channel/3/mute", "i", "1"], ["/seqplay/gain", "f", "0.5"]] {
            XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)"] + arguments).status, 0)
        }
        XCTAssertNotNil(waitForLine(in: dumpFile, containing: "/seqplay/channel/3/volume f 0.503937", timeout: 2))
        XCTAssertNotNil(waitForLine(in: dumpFile, containing: "/seqplay/channel/3/mute i 1", timeout: 2))
        XCTAssertNotNil(waitForLine(in: dumpFile, containing: "/seqplay/gain f 0.500000", timeout: 2))

        // Hostile OSC: malformed packets, unknown addresses, huge numbers: a log line each, the host plays on.
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(udp) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = oscPort.bigEndian
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        for packet in [Array("garbage".utf8), [0x2F, 0x73, 0x00], Array("/seqplay/gain\0\0\0,f\0\0".utf8), [UInt8](repeating: 0xFF, count: 2000)] {
            _ = packet.withUnsafeBytes { bytes in
                withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(udp, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
        }
        for arguments in [["/seqplay/nothing"], ["/seqplay/channel/99/program", "i", "1"], ["/seqplay/channel/1/program", "i", "2147483647"],
                          ["/seqplay/gain", "f", "1e30"], ["/other/path", "s", "x"]] {
            XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)"] + arguments).status, 0)
        }
        usleep(300_000)
        XCTAssertTrue(client.ask("channels", until: "chan 15").contains("chan 0, Church Organ\n"))
        XCTAssertTrue(serve.isRunning)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0)
        let log = serve.standardErrorText
        XCTAssertTrue(log.contains("/seqplay/nothing: no such address"), log)
        XCTAssertTrue(log.contains("no channel 99 (channels are 1-16)"), log)
        XCTAssertTrue(log.contains("program 2147483647 is out of range (0-127)"), log)
        XCTAssertTrue(log.contains("/seqplay/gain: gain 1.0000000150474662e+30 is out of range (0-10)"), log)
        XCTAssertFalse(log.contains("Fatal"), log)
    }

    func testTheStateSurvivesARestartAndADamagedFileIsSetAside() throws {
        let scratch = try ScratchDirectory(prefix: "state")
        defer { scratch.remove() }
        let stateFile = scratch.path("xdg/seqplay/state.json")
        // Starts serve with a shell, lets `use` talk to it, then ends it (SIGTERM): the ended process.
        func serveOnce(_ use: (LineClient) -> Void) throws -> ChildProcess {
            let port = freePort()
            let serve = try startServe(scratch, ["--shell", "\(port)"])
            let client = try LineClient(port: port)
            use(client)
            serve.terminate()
            // 0.06 s here when idle; once over 10 s with two busy loops, the VM and the fuzzers beside the run.
            // The bound catches a serve that does not end, not the host's scheduling.
            XCTAssertTrue(serve.waitUntilExit(timeout: 60))
            return serve
        }
        var serve = try serveOnce { client in
            XCTAssertEqual(client.ask("prog 3 40"), "")
            XCTAssertEqual(client.ask("cc 3 7 77"), "")
            XCTAssertEqual(client.ask("mute 4 on"), "")
            XCTAssertEqual(client.ask("gain 0.6"), "")
        }
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any]
        let channels = saved?["channels"] as? [[String: Any]]
        XCTAssertEqual(channels?.count, 16)
        XCTAssertEqual(channels?[3]["channel"] as? Int, 4)
        XCTAssertEqual(channels?[3]["program"] as? Int, 40)
        XCTAssertEqual(channels?[3]["name"] as? String, "Violin")
        XCTAssertEqual(channels?[3]["volume"] as? Int, 77)
        XCTAssertEqual(channels?[4]["mute"] as? Bool, true)
        XCTAssertEqual(saved?["gain"] as? Double, 0.6)

        _ = try serveOnce { client in
            XCTAssertTrue(client.ask("channels -verbose", until: "chan 15").contains("chan 3, sfont 1, bank 0, preset 40, Violin\n"))
        }

        try Data("{\"channels\": [".utf8).write(to: URL(fileURLWithPath: stateFile))
        serve = try serveOnce { client in
            XCTAssertTrue(client.ask("channels", until: "chan 15").contains("chan 3, Grand Piano\n"))
        }
        XCTAssertEqual(serve.exitStatus, 0)
        let damagedLines = serve.standardErrorText.split(separator: "\n").filter { $0.contains("damaged") }
        XCTAssertEqual(damagedLines.count, 1, serve.standardErrorText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: stateFile + ".damaged"))
    }

    /// SIGHUP reloads the fonts and the module plays on with its channels' programs; SIGTERM ends it
    /// cleanly (status 0, the recording completed, the state saved).
    func testSIGHUPReloadsTheFontsAndSIGTERMEndsCleanly() throws {
        let scratch = try ScratchDirectory(prefix: "signals")
        defer { scratch.remove() }
        let port = freePort()
        let stateFile = scratch.path("state.json")
        let serve = try startServe(scratch, ["--shell", "\(port)", "--state", stateFile])
        let client = try LineClient(port: port)
        XCTAssertEqual(client.ask("prog 2 40"), "")
        XCTAssertEqual(client.ask("fonts"), "ID  Name\n 1  \(Self.font)\n")
        serve.signal(SIGHUP)
        let start = Date()
        while Date().timeIntervalSince(start) < 10, !serve.standardErrorText.contains("SIGHUP: fonts reloaded") { usleep(20_000) }
        XCTAssertEqual(client.ask("fonts"), "ID  Name\n 1  \(Self.font)\n", "the font loaded again, keeping its id")
        XCTAssertTrue(client.ask("channels", until: "chan 15").contains("chan 2, Violin\n"), "programs kept")
        XCTAssertTrue(serve.isRunning)
        XCTAssertTrue(serve.standardErrorText.contains("SIGHUP: fonts reloaded"), serve.standardErrorText)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        XCTAssertTrue(serve.standardErrorText.contains("seqplay: wrote "), serve.standardErrorText)
        let saved = try JSONDecoder().decode(SavedState.self, from: Data(contentsOf: URL(fileURLWithPath: stateFile)))
        XCTAssertEqual(saved.channels[2].program, 40)
    }

    private struct SavedState: Decodable {
        struct Channel: Decodable { var channel: Int; var program: Int }
        var channels: [Channel]
    }

    /// Scripts/install puts the binary, the font and a unit systemd-analyze accepts in the places given,
    /// and the unit's command line runs.
    func testInstallWritesAUnitSystemdAccepts() throws {
        _ = try tool("systemd-analyze")
        let scratch = try ScratchDirectory(prefix: "install")
        defer { scratch.remove() }
        let network = freePort(Int32(SOCK_DGRAM.rawValue))
        let install = try runCommand(Self.packageRoot.appendingPathComponent("Scripts/install"),
                                     ["--binary", seqplayBinary.path, "--prefix", scratch.path("prefix"), "--unit-dir", scratch.path("units"),
                                      "--no-enable", "--", "--network", "--listen", "127.0.0.1:\(network)", "-o", scratch.path("heard.wav"),
                                      "--duration", "1", "--no-state"])
        XCTAssertEqual(install.status, 0, install.standardError)
        XCTAssertTrue(install.standardOutput.contains("systemd-analyze verify"), install.standardOutput)
        let unit = try String(contentsOfFile: scratch.path("units/seqplay.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("Restart=on-failure"))
        XCTAssertTrue(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"))
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: scratch.path("prefix/bin/seqplay")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path("prefix/share/seqplay/seqplay-gm.sf2")))
        let execStart = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        XCTAssertTrue(execStart.contains("--sf2 \"\(scratch.path("prefix/share/seqplay/seqplay-gm.sf2"))\""), String(execStart))
        let run = try runShell(String(execStart), timeLimit: 20)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path("heard.wav")))

        // The same check refuses a unit whose program is missing.
        try FileManager.default.removeItem(atPath: scratch.path("prefix/bin/seqplay"))
        let verify = try runCommand(URL(fileURLWithPath: try tool("systemd-analyze")), ["verify", scratch.path("units/seqplay.service")])
        XCTAssertNotEqual(verify.status, 0)
    }

    /// A program change that arrives as MIDI (a network peer here, as a keyboard's would) is in the
    /// model: the shell's `channels` and an OSC subscriber show it.
    func testAProgramChangeFromAPlayerUpdatesTheModel() throws {
        let oscdump = try tool("oscdump"), oscsend = try tool("oscsend")
        let scratch = try ScratchDirectory(prefix: "keyboard")
        defer { scratch.remove() }
        // Format 0: program 19 (Church Organ) on channel 2, one note.
        let track: [UInt8] = [0x00, 0xC1, 19, 0x00, 0x91, 60, 100, 0x60, 0x81, 60, 0, 0x00, 0xFF, 0x2F, 0x00]
        let song: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, UInt8(track.count)] + track
        try Data(song).write(to: URL(fileURLWithPath: scratch.path("organ.mid")))
        let network = freePort(Int32(SOCK_DGRAM.rawValue)), shellPort = freePort()
        let oscPort = freePort(Int32(SOCK_DGRAM.rawValue)), dumpPort = freePort(Int32(SOCK_DGRAM.rawValue))
        let serve = try ChildProcess(seqplayBinary.path, ["serve", "--network", "--listen", "127.0.0.1:\(network)", "--sf2", Self.font,
                                                          "-o", scratch.path("heard.wav"), "--duration", "30", "--no-state",
                                                          "--shell", "\(shellPort)", "--osc", "\(oscPort)"],
                                     standardInput: .null, standardOutput: .capture, standardError: .capture)
        defer { if serve.isRunning { serve.signal(SIGKILL); serve.waitUntilExit() } }
        let client = try LineClient(port: shellPort)
        XCTAssertTrue(client.ask("channels", until: "chan 15").contains("chan 1, Grand Piano\n"))
        let dumpFile = scratch.path("dump.txt")
        let dump = try ChildProcess(oscdump, ["-L", "\(dumpPort)"], standardInput: .null, standardOutput: .file(dumpFile), standardError: .capture)
        defer { dump.signal(SIGKILL); dump.waitUntilExit() }
        usleep(200_000)
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)", "/seqplay/subscribe", "i", "\(dumpPort)"]).status, 0)
        usleep(100_000)
        let player = try runSeqplay([scratch.path("organ.mid"), "--sf2", Self.font, "--network-connect", "127.0.0.1:\(network)", "--no-audio"],
                                    timeLimit: 30)
        XCTAssertEqual(player.status, 0, player.standardError)
        XCTAssertNotNil(waitForLine(in: dumpFile, containing: "/seqplay/channel/2/program iis 19 0 \"Church Organ\"", timeout: 3),
                        (try? String(contentsOfFile: dumpFile, encoding: .utf8)) ?? "")
        XCTAssertTrue(client.ask("channels", until: "chan 15").contains("chan 1, Church Organ\n"))
        let dumped = (try? String(contentsOfFile: dumpFile, encoding: .utf8)) ?? ""
        XCTAssertTrue(dumped.contains("/seqplay/inputs s \"network peer "), "the peer was an input while it played: \(dumped)")
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
    }

    /// This machine's first IPv4 address that is not loopback, if it has one.
    private func outsideAddress() throws -> String {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { throw XCTSkip("no network interfaces") }
        defer { freeifaddrs(first) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if UInt32(bigEndian: ipv4.s_addr) >> 24 != 127 { return String(cString: inet_ntoa(ipv4)) }
            }
            entry = current.pointee.ifa_next
        }
        throw XCTSkip("no IPv4 address besides loopback")
    }

    /// Bound to every address, the faces answer loopback, and a peer at another address only when
    /// --control-allow names it (here this machine's own outside address, so the peer is real).
    func testOnlyLoopbackAndAllowedHostsAreAnswered() throws {
        let oscsend = try tool("oscsend")
        let outside = try outsideAddress()
        let scratch = try ScratchDirectory(prefix: "allow")
        defer { scratch.remove() }
        for allowed in [false, true] {
            let shellPort = freePort(), oscPort = freePort(Int32(SOCK_DGRAM.rawValue))
            let serve = try startServe(scratch, ["--shell", "0.0.0.0:\(shellPort)", "--osc", "0.0.0.0:\(oscPort)", "--no-state"]
                                       + (allowed ? ["--control-allow", outside] : []))
            let local = try LineClient(port: shellPort)
            XCTAssertTrue(local.ask("channels", until: "chan 15").contains("chan 0, Grand Piano"), "loopback is always answered")
            // A connection from the outside address (connecting to it makes it the peer's address).
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = shellPort.bigEndian
            address.sin_addr.s_addr = inet_addr(outside)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            XCTAssertEqual(connected, 0)
            var interval = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
            _ = "fonts\n".withCString { Glibc.send(fd, $0, 6, Int32(MSG_NOSIGNAL)) }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            if allowed {
                XCTAssertGreaterThan(count, 0)
                XCTAssertTrue(String(decoding: buffer[0..<max(count, 0)], as: UTF8.self).hasPrefix("ID  Name"))
            } else {
                XCTAssertLessThanOrEqual(count, 0, "the connection is closed (or reset) without an answer")
            }
            XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), [outside, "\(oscPort)", "/seqplay/channel/5/program", "i", "40"]).status, 0)
            usleep(300_000)
            let channels = local.ask("channels", until: "chan 15")
            XCTAssertEqual(channels.contains("chan 4, Violin\n"), allowed, channels)
            serve.terminate()
            XCTAssertTrue(serve.waitUntilExit(timeout: 10))
            let log = serve.standardErrorText
            if !allowed {
                XCTAssertTrue(log.contains("shell: refused a connection from \(outside)"), log)
                XCTAssertTrue(log.contains("OSC: ignored /seqplay/channel/5/program from \(outside)"), log)
            }
        }
    }

    /// `serve -o FILE` records from the start: recording on request is refused with one line and the
    /// host plays on (on a JACK output it records: JACKCLITests.SeqplaySoundModuleJACKTests).
    func testRecordingOnRequestIsRefusedWhileRecordingToO() throws {
        let oscsend = try tool("oscsend")
        let scratch = try ScratchDirectory(prefix: "record")
        defer { scratch.remove() }
        let shellPort = freePort(), oscPort = freePort(Int32(SOCK_DGRAM.rawValue))
        let serve = try startServe(scratch, ["--shell", "\(shellPort)", "--osc", "\(oscPort)", "--no-state"])
        let client = try LineClient(port: shellPort)
        XCTAssertFalse(client.ask("channels", until: "chan 15").isEmpty)
        let take = scratch.path("take.wav")
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: oscsend), ["localhost", "\(oscPort)", "/seqplay/record", "s", take]).status, 0)
        usleep(200_000)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        // serve -o records already: recording on request is refused with one line, the host plays on.
        XCTAssertTrue(serve.standardErrorText.contains("/seqplay/record: recording on request is not available here"), serve.standardErrorText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: take))
    }
}
