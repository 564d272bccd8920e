import AudioFiles
import Foundation
import MIDICore
import MIDIFile
import Player
import Rendering
import TestSupport
import XCTest

/// Two seqplay processes talking network MIDI on 127.0.0.1, as a user would debug without hardware:
/// a song played with `--network-connect` to `monitor --network --json` (event for event, timing)
/// and to `serve --network -o FILE` (the recording sounds like the offline render).
final class NetworkCLITests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let song = packageRoot.appendingPathComponent("Songs/bach-prelude-c.mid").path
    static let font = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
    /// The excerpt played: the first 8 seconds.
    static let excerptSeconds = 8.0
    /// The all-notes-off (CC 123 on 16 channels) the player sends after the song.
    static let releaseMessageCount = 16

    private var seqplayPath: String { seqplayBinary.path }

    /// A control port unlikely to clash with other tests or developers (its data port is the next).
    private func freePort() -> Int { Int.random(in: 20_000..<30_000) * 2 }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-net-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    /// Starts seqplay with `arguments`, its standard output and error going to files in `directory`.
    private func launch(_ arguments: [String], in directory: URL, name: String) throws -> (ChildProcess, stdout: URL, stderr: URL) {
        let out = directory.appendingPathComponent("\(name).out"), err = directory.appendingPathComponent("\(name).err")
        let process = try ChildProcess(seqplayPath, arguments, standardOutput: .file(out.path), standardError: .file(err.path))
        addTeardownBlock { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        return (process, out, err)
    }

    /// Waits (at most 10 s) until the file at `url` contains `text`.
    private func waitFor(_ text: String, in url: URL) throws {
        for _ in 0..<1000 {
            if try String(contentsOf: url, encoding: .utf8).contains(text) { return }
            usleep(10_000)
        }
        XCTFail("'\(text)' never appeared in \(url.lastPathComponent): \(try String(contentsOf: url, encoding: .utf8))")
    }

    /// Plays the excerpt (or the song with `flags`) to the session at `port` and checks it ends well.
    private func playExcerpt(toPort port: Int, in directory: URL, flags: [String]? = nil) throws {
        let player = try launch([Self.song] + (flags ?? ["--end", "\(Self.excerptSeconds)"]) + ["--network-connect", "127.0.0.1:\(port)"],
                                in: directory, name: "player")
        player.0.waitUntilExit()
        let errors = try String(contentsOf: player.stderr, encoding: .utf8)
        XCTAssertEqual(player.0.terminationStatus, 0, errors)
        XCTAssertTrue(errors.contains("playing to the network only"), errors)
    }

    /// The messages the sampler gets and their times (seconds), from its schedule in-process: what
    /// the player must send the network (by default: the excerpt).
    private func expectedEvents(_ song: SongOptions = SongOptions(end: .seconds(excerptSeconds))) throws -> [(time: Double, bytes: String)] {
        let sequence = try MIDIFileReader.read(contentsOf: Self.song, mode: .lenient).sequence
        let player = try MusicPlayer(sequence: sequence, sampleRate: RenderOptions().sampleRate, options: song)
        let log = SongEventLog()
        player.deliverEvents(before: .max, to: log)
        return log.events.map { (Double($0.sampleTime) / Double(player.sampleRate), Self.hex($0.message.bytes)) }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
    }

    func testMonitorReceivesTheSongEventForEventWithTimestampsWithin2Milliseconds() throws {
        try checkMonitorReceives(try expectedEvents())
    }

    /// --start, --end, --loop, --rate, --transpose, --mute and --solo-channel reach the peer as the
    /// sampler plays them: the same events in the same order, at the same times within 2 ms.
    func testEveryPlaybackFlagReachesThePeerAsTheSamplerPlaysIt() throws {
        let song = SongOptions(transpose: 3, rate: 1.5, start: .seconds(2), end: .seconds(12),
                               loop: LoopRegion(from: .seconds(4), to: .seconds(7), count: 2), mutedTracks: [1], soloedChannels: [0, 1])
        try checkMonitorReceives(try expectedEvents(song), flags: ["--start", "2", "--end", "12", "--loop", "2", "--loop-from", "4",
                                                                      "--loop-to", "7", "--rate", "1.5", "--transpose", "3", "--mute", "1",
                                                                      "--solo-channel", "1", "--solo-channel", "2"])
    }

    /// Plays the song with `flags` to `monitor --network --json` and compares what arrives with `expected`.
    private func checkMonitorReceives(_ expected: [(time: Double, bytes: String)], flags: [String]? = nil) throws {
        let directory = try temporaryDirectory()
        let port = freePort()
        XCTAssertGreaterThan(expected.count, 50)
        let monitor = try launch(["monitor", "--network", "--listen", "127.0.0.1:\(port)", "--json",
                                  "--count", "\(expected.count + Self.releaseMessageCount)", "--duration", "30"],
                                 in: directory, name: "monitor")
        try waitFor("Waiting for network MIDI peers", in: monitor.stderr)
        try playExcerpt(toPort: port, in: directory, flags: flags)
        monitor.0.waitUntilExit()
        XCTAssertEqual(monitor.0.terminationStatus, 0)

        struct Line: Decodable { var time: Double; var bytes: String; var source: String }
        let lines = try String(contentsOf: monitor.stdout, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        XCTAssertEqual(lines.count, expected.count + Self.releaseMessageCount)
        let received = lines.prefix(expected.count)
        XCTAssertEqual(received.map(\.bytes), expected.map(\.bytes), "events differ or are out of order")
        XCTAssertTrue(received.allSatisfy { $0.source == "seqplay" })
        XCTAssertTrue(lines.suffix(Self.releaseMessageCount).allSatisfy { $0.bytes.hasSuffix("7B 00") })
        let errors = zip(received, expected).map { abs(($0.time - received.first!.time) - ($1.time - expected[0].time)) }
        let worst = errors.max() ?? .infinity
        print("monitor --network: \(received.count) events, largest timestamp error \(String(format: "%.3f", worst * 1000)) ms")
        XCTAssertLessThan(worst, 0.002)
    }

    func testServeRecordsWhatThePlayerSendsAlignedWithTheOfflineRender() throws {
        let directory = try temporaryDirectory()
        let port = freePort()
        let heard = directory.appendingPathComponent("heard.wav").path
        let reference = directory.appendingPathComponent("reference.wav").path
        // A 100 ms playout buffer: the recording follows the sender's timestamps (what seqplay controls)
        // even when a busy host delivers packets late, instead of measuring the host's scheduling.
        let server = try launch(["serve", "--network", "--listen", "127.0.0.1:\(port)", "--sf2", Self.font, "-o", heard,
                                 "-r", "44100", "--network-latency", "100", "--duration", "\(Self.excerptSeconds + 3)"],
                                in: directory, name: "serve")
        try waitFor("serving on", in: server.stderr)
        try playExcerpt(toPort: port, in: directory)
        let offline = try launch([Self.song, "--end", "\(Self.excerptSeconds)", "--sf2", Self.font, "-o", reference], in: directory, name: "render")
        offline.0.waitUntilExit()
        XCTAssertEqual(offline.0.terminationStatus, 0)
        server.0.waitUntilExit()
        let serverErrors = try String(contentsOf: server.stderr, encoding: .utf8)
        XCTAssertEqual(server.0.terminationStatus, 0, serverErrors)

        let heardEnvelope = try Self.envelope(of: heard)
        // The song part of the offline render (its tail may be cut differently).
        let referenceEnvelope = Array(try Self.envelope(of: reference).prefix(Int(Self.excerptSeconds / Self.hopSeconds)))
        XCTAssertGreaterThan(heardEnvelope.max() ?? 0, 0.01, "the recording is silent")
        let (lag, correlation) = Self.bestAlignment(of: referenceEnvelope, in: heardEnvelope)
        print("serve --network: envelope correlation \(String(format: "%.3f", correlation)) with the offline render at \(Double(lag) * Self.hopSeconds) s")
        XCTAssertGreaterThan(correlation, 0.75)
    }

    static let hopFrames = 441
    static var hopSeconds: Double { Double(hopFrames) / 44_100 }

    /// RMS of the mixed-down file over consecutive 10 ms windows.
    private static func envelope(of path: String) throws -> [Double] {
        let reader = try AudioFileReader(path: path)
        XCTAssertEqual(reader.sampleRate, 44_100)
        let channels = reader.channelCount
        var samples = [Float](repeating: 0, count: Int(reader.frameCount) * channels)
        let read = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, maxFrames: Int(reader.frameCount)) }
        return stride(from: 0, to: read - hopFrames, by: hopFrames).map { start in
            var sum = 0.0
            for frame in start..<(start + hopFrames) {
                let mono = (0..<channels).reduce(0.0) { $0 + Double(samples[frame * channels + $1]) }
                sum += mono * mono
            }
            return (sum / Double(hopFrames)).squareRoot()
        }
    }

    /// The offset of `pattern` in `signal` with the highest normalized correlation, and that correlation.
    private static func bestAlignment(of pattern: [Double], in signal: [Double]) -> (lag: Int, correlation: Double) {
        var best = (lag: 0, correlation: -1.0)
        for lag in 0...max(0, signal.count - pattern.count) {
            let window = signal[lag..<min(signal.count, lag + pattern.count)]
            let count = min(window.count, pattern.count)
            let meanA = window.reduce(0, +) / Double(count), meanB = pattern.prefix(count).reduce(0, +) / Double(count)
            var product = 0.0, a2 = 0.0, b2 = 0.0
            for (a, b) in zip(window, pattern) {
                product += (a - meanA) * (b - meanB); a2 += (a - meanA) * (a - meanA); b2 += (b - meanB) * (b - meanB)
            }
            let correlation = product / max((a2 * b2).squareRoot(), .leastNonzeroMagnitude)
            if correlation > best.correlation { best = (lag, correlation) }
        }
        return best
    }
}

