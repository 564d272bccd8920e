import Control
@testable import ControlHTTP
import Foundation
import TestSupport
import XCTest

/// Who may use the HTTP face. For real: serve on 0.0.0.0 in a network namespace of its own (`unshare
/// -n`, its loopback interface also given 198.51.100.7, a documentation address, so no traffic leaves
/// the namespace) and curl from the non-loopback address: 401 without the token, 200 with it (header or
/// query), the same token after a restart, the page opened with `?token=` works from there (Chromium);
/// loopback clients need none. And the rules' parts.
final class HTTPAccessTests: XCTestCase {
    func testFromANonLoopbackAddressTheTokenIsNeeded() throws {
        guard toolExists("/usr/bin/curl") else { throw XCTSkip("curl is not installed") }
        guard (try? runShell("unshare -n true", timeLimit: 10))?.status == 0, toolExists("ip") || toolExists("/usr/sbin/ip") else {
            throw XCTSkip("cannot make a network namespace here (unshare -n needs root or user namespaces; ip from iproute2)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let script = scratch.appendingPathComponent("check.sh")
        let checker = ServedModule.packageRoot.appendingPathComponent("Scripts/web-page-check.py").path
        try """
        set -u
        PATH=/usr/sbin:/sbin:$PATH
        ip link set lo up && ip addr add 198.51.100.7/32 dev lo || exit 90
        export XDG_STATE_HOME='\(scratch.path)/state'
        start() {
            '\(seqplayBinary.path)' serve --network --listen 127.0.0.1:5004 --no-alsa-ports --sf2 '\(ServedModule.font)' \\
                -o '\(scratch.path)/heard.wav' --http 0.0.0.0:8080 2> '\(scratch.path)/serve.err' &
            SERVE=$!
            for i in $(seq 500); do grep -q 'HTTP control at' '\(scratch.path)/serve.err' && return 0; sleep 0.02; done
            cat '\(scratch.path)/serve.err'; exit 91
        }
        code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
        start
        TOKEN=$(cat "$XDG_STATE_HOME/seqplay/http-token")
        echo "printed $(grep -c "$TOKEN" '\(scratch.path)/serve.err')"
        echo "bound $(grep -c 'HTTP control at http://0.0.0.0:8080/ (from other hosts: http://HOST:8080/?token=' '\(scratch.path)/serve.err')"
        echo "mode $(stat -c %a "$XDG_STATE_HOME/seqplay/http-token")"
        echo "none $(code http://198.51.100.7:8080/api/state)"
        echo "page $(code http://198.51.100.7:8080/)"
        echo "wrong $(code -H 'Authorization: Bearer nottheone' http://198.51.100.7:8080/api/state)"
        echo "forwarded $(code -H 'X-Forwarded-For: 127.0.0.1' http://198.51.100.7:8080/api/state)"
        echo "post $(code -X POST -H 'Content-Type: application/json' --data '{"volume": 1}' http://198.51.100.7:8080/api/channels/1)"
        echo "bearer $(code -H "Authorization: Bearer $TOKEN" http://198.51.100.7:8080/api/state)"
        echo "query $(code "http://198.51.100.7:8080/?token=$TOKEN")"
        echo "loopback $(code http://127.0.0.1:8080/api/state)"
        echo "rebound $(code -H 'Host: evil.example:8080' http://127.0.0.1:8080/api/state)"
        echo "volume1 $(curl -s http://127.0.0.1:8080/api/state | grep -o '"volume":[0-9]*' | head -1)"
        if command -v chromium >/dev/null && command -v python3 >/dev/null; then
            # The page opened from the outside address with ?token= passes it on to the API and the WebSocket.
            echo "pagelive $(python3 '\(checker)' dump "http://198.51.100.7:8080/?token=$TOKEN" | grep -o '"connection":"[a-z]*"')"
            echo "chosen $(python3 '\(checker)' choose "http://198.51.100.7:8080/?token=$TOKEN" 4 Violin)"
            echo "channel4 $(curl -s http://127.0.0.1:8080/api/state | grep -o '"channel":4,"font":1,"mute":false,"name":"[A-Za-z ]*"')"
        fi
        kill $SERVE; wait $SERVE
        start
        echo "kept $(code -H "Authorization: Bearer $TOKEN" http://198.51.100.7:8080/api/state)"
        kill $SERVE; wait $SERVE
        """.write(to: script, atomically: true, encoding: .utf8)
        let run = try runShell("unshare -n sh '\(script.path)'", timeLimit: 60)
        XCTAssertEqual(run.status, 0, run.standardOutput + run.standardError)
        var results: [String: String] = [:]
        for line in run.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { results[String(parts[0])] = String(parts[1]) }
        }
        XCTAssertEqual(results["printed"], "0", "the whole token is never printed: \(run.standardOutput)")
        XCTAssertEqual(results["bound"], "1", "the start line names the address bound: \(run.standardOutput)")
        XCTAssertEqual(results["mode"], "600", "the token file is its owner's only")
        for refused in ["none", "page", "wrong", "forwarded", "post", "rebound"] {
            XCTAssertEqual(results[refused], "401", "\(refused): \(run.standardOutput)")
        }
        XCTAssertEqual(results["volume1"], #""volume":100"#, "the refused POST changed nothing")
        if toolExists("chromium"), toolExists("python3") {
            XCTAssertEqual(results["pagelive"], #""connection":"live""#, "the page from outside, with the token: \(run.standardOutput)")
            XCTAssertEqual(results["chosen"], "000:040 Violin", run.standardOutput)
            XCTAssertEqual(results["channel4"], #""channel":4,"font":1,"mute":false,"name":"Violin""#, run.standardOutput)
        }
        for allowed in ["bearer", "query", "loopback", "kept"] {
            XCTAssertEqual(results[allowed], "200", "\(allowed): \(run.standardOutput)")
        }
    }

    func testLoopbackPeersAndHostNames() {
        XCTAssertTrue(HTTPAccess.isLoopback(.ip4("127.0.0.1", port: 1)))
        XCTAssertTrue(HTTPAccess.isLoopback(.ip4("127.9.8.7", port: 1)))
        XCTAssertTrue(HTTPAccess.isLoopback(.ip6("::1", port: 1)))
        XCTAssertTrue(HTTPAccess.isLoopback(.ip6("::ffff:127.0.0.1", port: 1)))
        XCTAssertFalse(HTTPAccess.isLoopback(.ip4("198.51.100.7", port: 1)))
        XCTAssertFalse(HTTPAccess.isLoopback(.ip6("::ffff:198.51.100.7", port: 1)))
        XCTAssertFalse(HTTPAccess.isLoopback(.ip6("fd00::2", port: 1)))
        XCTAssertFalse(HTTPAccess.isLoopback(nil))
        for name in ["localhost", "localhost:8080", "127.0.0.1:80", "127.1.2.3", "[::1]:8080", nil] {
            XCTAssertTrue(HTTPAccess.namesThisMachine(name), name ?? "nil")
        }
        for name in ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example", "[::2]:80", "127.0.0.256", ""] {
            XCTAssertFalse(HTTPAccess.namesThisMachine(name), name)
        }
    }

    func testListenAddresses() {
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "8080"), ControlEndpoint(host: "127.0.0.1", port: 8080))
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "0.0.0.0:80"), ControlEndpoint(host: "0.0.0.0", port: 80))
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "[::1]:9000"), ControlEndpoint(host: "::1", port: 9000))
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "[::1]:9000")?.description, "[::1]:9000")
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "127.0.0.1:0")?.isLoopback, true)
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "0.0.0.0:1")?.isLoopback, false)
        XCTAssertEqual(ControlEndpoint(parsingNumeric: "localhost:80"), ControlEndpoint(host: "127.0.0.1", port: 80))
        for bad in ["", "x", "example.com:80", "65536", "-1", "1.2.3:80", "[::1]", "[::1]80", ":80"] {
            XCTAssertNil(ControlEndpoint(parsingNumeric: bad), bad)
        }
        // The shell's and OSC's reading takes a host name, not an IPv6 address.
        XCTAssertEqual(ControlEndpoint(parsing: "example.com:80"), ControlEndpoint(host: "example.com", port: 80))
        XCTAssertEqual(ControlEndpoint(parsing: "localhost:80")?.description, "localhost:80")
        XCTAssertNil(ControlEndpoint(parsing: "[::1]:9000"))
    }

    func testTokensAreMadeOnceKeptPrivateAndComparedWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-tok-\(UUID().uuidString)/seqplay").path
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let first = try HTTPAccessToken.loadOrCreate(in: directory)
        XCTAssertTrue(first.created)
        XCTAssertEqual(first.token.value.count, 32)
        let again = try HTTPAccessToken.loadOrCreate(in: directory)
        XCTAssertFalse(again.created)
        XCTAssertEqual(again.token, first.token)
        let path = directory + "/http-token"
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertNotEqual(HTTPAccessToken.generate(), HTTPAccessToken.generate())
        XCTAssertTrue(first.token.matches(first.token.value))
        XCTAssertFalse(first.token.matches(String(first.token.value.dropLast())))
        XCTAssertFalse(first.token.matches(first.token.value + "x"))
        XCTAssertFalse(first.token.matches(""))
        // Lengths that differ by a multiple of 256 are still different lengths.
        for extra in [255, 256, 257, 512] {
            XCTAssertFalse(first.token.matches(first.token.value + String(repeating: "A", count: extra)), "\(extra) more")
        }
        let long = HTTPAccessToken(value: String(repeating: "k", count: 256))
        XCTAssertTrue(long.matches(String(repeating: "k", count: 256)))
        XCTAssertFalse(long.matches(""))
        XCTAssertFalse(long.matches(String(repeating: "k", count: 512)))
        XCTAssertFalse(long.matches(String(repeating: "k", count: 255)))
        XCTAssertFalse("\(first.token)".contains(first.token.value), "descriptions never show the secret")
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: path))
        let replaced = try HTTPAccessToken.loadOrCreate(in: directory)
        XCTAssertTrue(replaced.created, "an unusable token file is replaced")
    }
}
