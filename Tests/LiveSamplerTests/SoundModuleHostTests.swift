import Control
import ControlHTTP
import Foundation
import Sessions
import NetworkMIDI
import TestSupport
import XCTest

/// `SoundModuleHost` as a Swift program uses it, in a few lines: a session recording to a file, the
/// FluidSynth shell (a raw TCP client) and the HTTP face (curl), the state file restored and saved.
final class SoundModuleHostTests: XCTestCase {
    private static let font = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../SoundFonts/seqplay-gm.sf2").standardized.path

    /// The host's log lines, gathered from whichever thread says them.
    private final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        /// The port in the first line starting with `prefix` ("… on 127.0.0.1:PORT", "… at http://127.0.0.1:PORT/").
        func port(after prefix: String) -> UInt16? {
            lock.withLock { lines.first { $0.hasPrefix(prefix) } }.flatMap { line in
                line.split(separator: ":").last.map { $0.prefix { $0.isNumber } }.flatMap { UInt16($0) }
            }
        }
        var all: [String] { lock.withLock { lines } }
    }

    /// Whether `condition` holds within 10 s (the samplers' state comes back within a few render cycles).
    private static func eventually(_ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(10)
        while !condition() {
            if Date() > end { return false }
            usleep(10_000)
        }
        return true
    }

    private func run(stateFile: String, recording: String, log: Log, play: (SoundModuleHost, _ shell: UInt16, _ http: UInt16) throws -> Void) throws {
        var configuration = LiveSamplerConfiguration(soundFonts: [Self.font], output: .recording(path: recording, sampleRate: 48_000))
        var network = NetworkMIDISession.Configuration()
        network.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        configuration.network = network
        configuration.networkPeersAsALSAPorts = false
        let session = try LiveSamplerSession(configuration)
        var module = SoundModuleHostConfiguration()
        module.shell = ControlEndpoint(parsing: "0")
        module.stateFile = stateFile
        module.libraryPath = nil
        let host = try SoundModuleHost(session: session, configuration: module, log: log.append)
        host.add(try ControlHTTPFace(control: host.control, engine: session.engine, samplers: session.samplers,
                                     address: XCTUnwrap(ControlEndpoint(parsingNumeric: "0")),
                                     stateDirectory: (stateFile as NSString).deletingLastPathComponent, libraryPath: nil))
        try session.start()
        host.start()
        let shell = try XCTUnwrap(log.port(after: "FluidSynth shell on"), "\(log.all)")
        let http = try XCTUnwrap(log.port(after: "HTTP control at"), "\(log.all)")
        try play(host, shell, http)
        host.stop()
        XCTAssertNil(session.stop().failure)
    }

    func testAHostInAFewLinesAnswersItsFacesAndKeepsItsState() throws {
        let scratch = try ScratchDirectory(prefix: "module-host")
        defer { scratch.remove() }
        let stateFile = scratch.path("state.json"), log = Log()
        try run(stateFile: stateFile, recording: scratch.path("one.wav"), log: log) { host, shellPort, httpPort in
            let shell = try LineClient(port: shellPort)
            shell.send("prog 2 19\n")
            _ = shell.read()
            XCTAssertTrue(Self.eventually { host.control.state.channels[2].program == 19 }, "\(host.control.state.channels[2])")
            let state = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--max-time", "10", "http://127.0.0.1:\(httpPort)/api/state"],
                                       timeLimit: 20)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(state.standardOutput.utf8)) as? [String: Any])
            let channels = try XCTUnwrap(json["channels"] as? [[String: Any]])
            XCTAssertEqual(channels[2]["program"] as? Int, 19, state.standardOutput)
        }
        // Saved at stop, and restored by the next host over a new session.
        let saved = try JSONDecoder().decode(ControlState.self, from: Data(contentsOf: URL(fileURLWithPath: stateFile)))
        XCTAssertEqual(saved.channels[2].program, 19)
        try run(stateFile: stateFile, recording: scratch.path("two.wav"), log: Log()) { host, _, _ in
            XCTAssertTrue(Self.eventually { host.control.state.channels[2].program == 19 }, "\(host.control.state.channels[2])")
        }
    }
}
