import Foundation
import TestSupport
import XCTest

/// The JSON API of `serve --http`, driven by curl: the state, changes, and hostile requests (bad JSON,
/// huge numbers, path tricks, 1 MB bodies, another site's page), each one error answer while the host
/// keeps playing. One serve for the class.
final class HTTPAPITests: ServedModuleTestCase {
    func testStateHas16ChannelsAndTheFontsPresetsAsTheFontNamesThem() throws {
        let state = try module.state()
        let channels = try XCTUnwrap(state["channels"] as? [[String: Any]])
        XCTAssertEqual(channels.map { $0["channel"] as? Int }, (1...16).map { $0 })
        for key in ["program", "bank", "name", "volume", "pan", "mute", "font"] {
            XCTAssertTrue(channels[0].keys.contains(key), "channel has no \(key): \(channels[0])")
        }
        let fonts = try XCTUnwrap(state["fonts"] as? [[String: Any]])
        XCTAssertEqual(fonts.count, 1)
        let presets = try XCTUnwrap(fonts[0]["presets"] as? [[String: Any]])
        XCTAssertTrue(presets.contains { $0["name"] as? String == "Church Organ" && $0["program"] as? Int == 19 }, "\(presets)")
        for key in ["gain", "reverb", "chorus", "inputs"] { XCTAssertNotNil(state[key], "no \(key)") }
    }

    func testPostingAChannelChangesTheStateAndTheAnswerIsTheNewState() throws {
        let answer = try module.curl("POST", "/api/channels/3", json: #"{"program": 19, "volume": 90, "pan": 30}"#)
        XCTAssertEqual(answer.status, 200, answer.body)
        let channel = try module.channel(3)
        XCTAssertEqual(channel["program"] as? Int, 19)
        XCTAssertEqual(channel["name"] as? String, "Church Organ")
        XCTAssertEqual(channel["volume"] as? Int, 90)
        XCTAssertEqual(channel["pan"] as? Int, 30)
        let answered = (answer.json?["channels"] as? [[String: Any]])?[2]
        XCTAssertEqual(answered?["name"] as? String, "Church Organ", "the answer is the state after the change")

        XCTAssertEqual(try module.curl("POST", "/api/channels/3", json: #"{"mute": true}"#).status, 200)
        XCTAssertEqual(try module.channel(3)["mute"] as? Bool, true)
        XCTAssertEqual(try module.curl("POST", "/api/channels/3", json: #"{"mute": false, "font": 1, "bank": 0, "program": 40}"#).status, 200)
        XCTAssertEqual(try module.channel(3)["name"] as? String, "Violin")
        XCTAssertEqual(try module.channel(3)["mute"] as? Bool, false)
    }

    func testMasterGainReverbChorusAndPanic() throws {
        XCTAssertEqual(try module.curl("POST", "/api/gain", json: #"{"gain": 0.5}"#).status, 200)
        XCTAssertEqual(try module.state()["gain"] as? Double, 0.5)
        XCTAssertEqual(try module.curl("POST", "/api/reverb", json: #"{"enabled": false, "level": 0.3}"#).status, 200)
        let reverb = try module.state()["reverb"] as? [String: Any]
        XCTAssertEqual(reverb?["enabled"] as? Bool, false)
        XCTAssertEqual(reverb?["level"] as? Double, 0.3)
        XCTAssertEqual(try module.curl("POST", "/api/chorus", json: #"{"enabled": true, "voices": 4}"#).status, 200)
        XCTAssertEqual((try module.state()["chorus"] as? [String: Any])?["voices"] as? Int, 4)
        XCTAssertEqual(try module.curl("POST", "/api/panic").status, 200)
        XCTAssertEqual(try module.curl("GET", "/api/fonts").json?["fonts"].map { ($0 as? [Any])?.count }, 1)
    }

    /// Each hostile request gets one JSON error with its status; the host answers normally after all of them.
    func testHostileRequestsGetOneErrorEachAndTheHostKeepsPlaying() throws {
        let megabyte = module.directory.appendingPathComponent("mb.json").path
        try Data(("{\"name\": \"" + String(repeating: "x", count: 1 << 20) + "\"}").utf8).write(to: URL(fileURLWithPath: megabyte))
        let nested = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
        let cases: [(String, String, String?, [String], Int)] = [
            ("POST", "/api/channels/1", "{not json", [], 400),
            ("POST", "/api/channels/1", "[1, 2]", [], 400),
            ("POST", "/api/channels/1", nested, [], 400),
            ("POST", "/api/channels/1", #"{"volume": 1e30}"#, [], 400),
            ("POST", "/api/channels/1", #"{"volume": 1e400}"#, [], 400),
            ("POST", "/api/channels/1", #"{"program": 99999999999999999999999}"#, [], 400),
            ("POST", "/api/channels/1", #"{"program": -1}"#, [], 400),
            ("POST", "/api/channels/1", #"{"volume": 64.5}"#, [], 400),
            ("POST", "/api/channels/1", #"{"volume": "loud"}"#, [], 400),
            ("POST", "/api/channels/1", #"{"volumee": 3}"#, [], 400),
            ("POST", "/api/channels/1", "{}", [], 400),
            ("POST", "/api/channels/1", #"{"bank": 77, "program": 77}"#, [], 400),
            ("POST", "/api/channels/1", #"{"font": 99, "bank": 0, "program": 0}"#, [], 404),
            ("POST", "/api/gain", #"{"gain": 1e308}"#, [], 400),
            ("POST", "/api/gain", #"{"gain": -1}"#, [], 400),
            ("POST", "/api/channels/17", #"{"volume": 3}"#, [], 404),
            ("POST", "/api/channels/0", #"{"volume": 3}"#, [], 404),
            ("POST", "/api/channels/99999999999999999999", #"{"volume": 3}"#, [], 404),
            ("POST", "/api/channels/1", nil, ["-H", "Content-Type: text/plain", "--data-binary", #"{"volume": 3}"#], 415),
            ("POST", "/api/channels/1", nil, ["-H", "Content-Type: application/json", "--data-binary", "@" + megabyte], 413),
            ("POST", "/api/channels/1", nil, ["-H", "Content-Type: application/json", "-H", "Transfer-Encoding: chunked",
                                              "--data-binary", "@" + megabyte], 413),
            ("GET", "/api/channels/1", nil, [], 405),
            ("DELETE", "/api/state", nil, [], 405),
            ("GET", "/../../../etc/passwd", nil, ["--path-as-is"], 404),
            ("GET", "/api/%2e%2e/%2e%2e/etc/passwd", nil, ["--path-as-is"], 404),
            ("GET", "/api/state/../../etc/passwd", nil, ["--path-as-is"], 404),
            ("GET", "/api/nothing", nil, [], 404),
            ("GET", "/api/state", nil, ["-H", "Origin: http://evil.example"], 403),
            ("POST", "/api/song", #"{"path": "/no/such.mid"}"#, [], 400),
            ("POST", "/api/recording", #"{"name": "../../x.wav"}"#, [], 400),
            ("POST", "/api/fonts", #"{"path": "/etc/passwd"}"#, [], 400),
            ("DELETE", "/api/fonts/7", nil, [], 404),
        ]
        for (method, path, body, arguments, expected) in cases {
            let answer = try module.curl(method, path, json: body, arguments)
            let label = "\(method) \(path) \(body?.prefix(40) ?? "") \(arguments.prefix(4))"
            XCTAssertEqual(answer.status, expected, "\(label): \(answer.body.prefix(300))")
            XCTAssertNotNil(answer.error, "\(label): no {\"error\": …} in \(answer.body.prefix(300))")
            XCTAssertFalse(answer.body.contains("root:"), label)
        }
        XCTAssertTrue(module.process.isRunning, module.log)
        // It goes on recording what it plays (on the system clock): the file (under its temporary name
        // until the end) grows.
        func recorded() throws -> Int {
            let directory = module.directory.path
            return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains("heard.wav") }
                .reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0) }
        }
        let before = try recorded()
        usleep(400_000)
        XCTAssertGreaterThan(try recorded(), before, "the recording stopped growing")
        let state = try module.state()
        XCTAssertEqual((state["channels"] as? [Any])?.count, 16)
        XCTAssertEqual(try module.curl("POST", "/api/channels/1", json: #"{"volume": 101}"#).status, 200, "the host still takes changes")
        XCTAssertEqual(try module.channel(1)["volume"] as? Int, 101)
    }

    /// The CPU time serve has used so far (user and system, from /proc).
    private func cpuSeconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(module.process.processIdentifier)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try XCTUnwrap(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Double(fields[11]) ?? 0) / Double(sysconf(Int32(_SC_CLK_TCK))) + (Double(fields[12]) ?? 0) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// What a raw TCP client gets back for `request` (until the server closes, or `marker` has come).
    private func exchange(_ request: String, until marker: String? = nil) throws -> String {
        let client = try LineClient(port: UInt16(module.port), quiet: 1)
        client.send(request)
        return client.read(until: marker)
    }

    /// A request line, header line or head past its bound is refused (414, 431) before FlyingFox
    /// reads it, at once and for little CPU; requests one after another on a connection still pass.
    func testLongRequestLinesAndHeadersAreRefusedCheaply() throws {
        let before = try cpuSeconds()
        let started = Date()
        let longLine = try exchange("GET /api/state?" + String(repeating: "a", count: 96 * 1024) + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let elapsed = Date().timeIntervalSince(started)
        let cpu = try cpuSeconds() - before
        print(String(format: "a 96 KiB request line: answered in %.0f ms, serve's CPU %.3f s", elapsed * 1000, cpu))
        XCTAssertTrue(longLine.hasPrefix("HTTP/1.1 414 URI Too Long\r\n"), String(longLine.prefix(300)))
        XCTAssertTrue(longLine.hasSuffix(#"{"error":"the request line is over 4096 bytes"}"#), String(longLine.prefix(300)))
        XCTAssertLessThan(cpu, 0.5)
        let manyHeaders = (0..<101).map { "X-Header-\($0): x\r\n" }.joined()
        for head in ["GET /api/state HTTP/1.1\r\nHost: localhost\r\n" + manyHeaders + "\r\n",
                     "GET /api/state HTTP/1.1\r\nHost: localhost\r\nX-Long: " + String(repeating: "b", count: 9_000) + "\r\n\r\n",
                     "GET /api/state HTTP/1.1\r\n" + String(repeating: "X-Header: " + String(repeating: "c", count: 4_000) + "\r\n", count: 5) + "\r\n"] {
            let answer = try exchange(head)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), String(answer.prefix(300)))
        }
        // Just within the bounds: answered as usual.
        let within = try exchange("GET /api/state?" + String(repeating: "a", count: 1_000) + " HTTP/1.1\r\nHost: localhost\r\n"
                                  + (0..<98).map { "X-Header-\($0): x\r\n" }.joined() + "Connection: close\r\n\r\n", until: "HTTP/1.1 ")
        XCTAssertTrue(within.hasPrefix("HTTP/1.1 200 "), String(within.prefix(300)))
        // Keep-alive: a request, a body and another request on one connection.
        let body = #"{"volume": 77}"#
        let both = try exchange("POST /api/channels/2 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)GET /api/songs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                                until: "{\"songs\"")
        XCTAssertEqual(both.components(separatedBy: "HTTP/1.1 200 ").count, 3, String(both.prefix(600)))
        XCTAssertEqual(try module.channel(2)["volume"] as? Int, 77)
        // A chunked body (with an extension and a trailer), then another request on the same connection.
        let chunked = try exchange("POST /api/channels/3 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                   + "Transfer-Encoding: chunked\r\n\r\n5;x=y\r\n{\"vol\r\n9\r\nume\": 66}\r\n0\r\nX-Trailer: 1\r\n\r\n"
                                   + "GET /api/songs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", until: "{\"songs\"")
        XCTAssertEqual(chunked.components(separatedBy: "HTTP/1.1 200 ").count, 3, String(chunked.prefix(600)))
        XCTAssertEqual(try module.channel(3)["volume"] as? Int, 66)
        XCTAssertTrue(module.process.isRunning, module.log)
    }

    func testThePageIsServedAtTheRootWithAPolicyAgainstOtherSites() throws {
        let answer = try module.curl("GET", "/", json: nil, ["-D", "-"])
        XCTAssertEqual(answer.status, 200)
        XCTAssertTrue(answer.body.contains("Content-Security-Policy: default-src 'none'"), answer.body.prefix(600).description)
        XCTAssertTrue(answer.body.contains("<title>seqplay</title>"))
        XCTAssertTrue(answer.body.contains("/api/events"))
    }

    /// A second server on the port taken is refused with exit 8 and one line.
    func testAPortInUseIsExit8() throws {
        let run = try runSeqplay(["serve", "--network", "--listen", "127.0.0.1:\(Int.random(in: 20_000..<25_000) * 2)", "--sf2", ServedModule.font,
                                  "-o", module.directory.appendingPathComponent("second.wav").path, "--http", "127.0.0.1:\(module.port)",
                                  "--duration", "5"], timeLimit: 20)
        XCTAssertEqual(run.status, 8, run.standardError)
        XCTAssertTrue(run.standardError.contains("cannot listen for HTTP on 127.0.0.1:\(module.port)"), run.standardError)
    }

    func testABadHTTPAddressIsABadCommandLine() throws {
        for bad in ["example.com:80", "1.2.3.4.5:80", "127.0.0.1:70000", "", "[::1]"] {
            let run = try runSeqplay(["serve", "--network", "--sf2", ServedModule.font, "-o", "/tmp/never.wav", "--http", bad], timeLimit: 20)
            XCTAssertEqual(run.status, 64, "\(bad): \(run.standardError)")
            XCTAssertTrue(run.standardError.contains("--http"), run.standardError)
        }
    }
}
