import Foundation
import XCTest
import MIDICore
import MIDIFile
import TestSupport

/// Runs the built `seqplay info` on files written here and checks what it prints and how it exits.
final class InfoCommandTests: XCTestCase {
    private func seqplay(_ arguments: [String]) throws -> CommandRun {
        try runCommand(seqplayBinary, arguments)
    }

    private func temporaryFile(_ bytes: [UInt8], name: String = "song.mid") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func meta(_ tick: Int64, _ meta: MetaEvent) -> TimedEvent { TimedEvent(tick: tick, .meta(meta)) }
    private func text(_ tick: Int64, _ kind: MetaTextKind, _ value: String) -> TimedEvent { meta(tick, .text(kind, Array(value.utf8))) }
    private func midi(_ tick: Int64, _ message: MIDIMessage) -> TimedEvent { TimedEvent(tick: tick, .midi(message)) }

    /// Two bars of 4/4 at 120 BPM then one bar of 3/4 at 60 BPM: 4 s + 3 s.
    private func song() throws -> String {
        let conductor = MusicTrack(events: [
            text(0, .trackName, "Tempo Track"), text(0, .copyright, "© Nobody"),
            meta(0, .timeSignature(numerator: 4, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)),
            meta(0, .keySignature(sharps: 2, minor: false)), text(0, .marker, "Verse"),
            meta(3840, .tempo(microsecondsPerQuarter: 1_000_000)),
            meta(3840, .timeSignature(numerator: 3, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)),
            text(3840, .marker, "Coda"), meta(5280, .endOfTrack),
        ])
        let piano = MusicTrack(events: [
            text(0, .trackName, "Piano"), midi(0, .programChange(channel: 0, program: 0)),
            midi(0, .programChange(channel: 9, program: 0)), text(0, .lyric, "Hel"),
            midi(0, .noteOn(channel: 0, note: 60, velocity: 90)), text(480, .lyric, "lo"), midi(480, .noteOff(channel: 0, note: 60, velocity: 0)),
            midi(480, .noteOn(channel: 9, note: 36, velocity: 90)), midi(960, .noteOn(channel: 9, note: 36, velocity: 0)),
            meta(5280, .endOfTrack),
        ])
        let bytes = try MIDIFileWriter.write(MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: [conductor, piano]))
        return try temporaryFile(bytes)
    }

    func testJSONReport() throws {
        let run = try seqplay(["info", "--json", try song()])
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(report["format"] as? Int, 1)
        XCTAssertEqual((report["division"] as? [String: Any])?["ticksPerQuarter"] as? Int, 480)
        let duration = try XCTUnwrap(report["duration"] as? [String: Any])
        XCTAssertEqual(duration["seconds"] as? Double, 7)
        XCTAssertEqual(duration["bars"] as? Double, 3)
        XCTAssertEqual(duration["ticks"] as? Int, 5280)
        let tempo = try XCTUnwrap(report["tempo"] as? [String: Any])
        XCTAssertEqual(tempo["minimumBPM"] as? Double, 60)
        XCTAssertEqual(tempo["maximumBPM"] as? Double, 120)
        XCTAssertEqual(tempo["changes"] as? Int, 1)
        let signatures = try XCTUnwrap(report["timeSignatures"] as? [[String: Any]])
        XCTAssertEqual(signatures.map { $0["value"] as? String }, ["4/4", "3/4"])
        XCTAssertEqual(signatures.map { $0["position"] as? String }, ["1:1:0", "3:1:0"])
        XCTAssertEqual((report["keySignatures"] as? [[String: Any]])?.map { $0["value"] as? String }, ["D major"])
        XCTAssertEqual((report["markers"] as? [[String: Any]])?.map { $0["value"] as? String }, ["Verse", "Coda"])
        XCTAssertEqual((report["markers"] as? [[String: Any]])?.map { $0["seconds"] as? Double }, [0, 4])
        XCTAssertEqual((report["lyrics"] as? [[String: Any]])?.map { $0["value"] as? String }, ["Hel", "lo"])
        XCTAssertEqual((report["texts"] as? [[String: Any]])?.map { $0["kind"] as? String }, ["copyright"])
        let tracks = try XCTUnwrap(report["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.map { $0["name"] as? String }, ["Tempo Track", "Piano"])
        XCTAssertEqual(tracks[1]["channels"] as? [Int], [1, 10])
        XCTAssertEqual(tracks[1]["notes"] as? Int, 2)
        XCTAssertEqual((tracks[1]["programs"] as? [[String: Any]])?.map { $0["instrument"] as? String }, ["Acoustic Grand Piano", "Drums"])
        XCTAssertEqual((report["warnings"] as? [String])?.count, 0)
    }

    func testHumanReadableReport() throws {
        let run = try seqplay(["info", try song()])
        XCTAssertEqual(run.status, 0, run.standardError)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("Format:    1, 2 tracks, 480 ticks per quarter note"), run.standardOutput)
        XCTAssertTrue(lines.contains("Duration:  0:07.0 (7 s), 3 bars, 5280 ticks"), run.standardOutput)
        XCTAssertTrue(lines.contains("Tempo:     60–120 BPM (1 change)"), run.standardOutput)
        XCTAssertTrue(lines.contains("Time:      4/4 at 1:1:0, 3/4 at 3:1:0"), run.standardOutput)
        XCTAssertTrue(lines.contains("  1  \"Piano\"  channels 1,10  Acoustic Grand Piano (0), Drums (0)  2 notes"), run.standardOutput)
        XCTAssertTrue(lines.contains("Marker:    3:1:0  Coda"), run.standardOutput)
    }

    func testRepairsAreWarningsUnlessStrict() throws {
        // One track whose End of Track is missing.
        let file = try temporaryFile([0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0x60,
                                      0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 8, 0x00, 0x90, 0x3C, 0x40, 0x60, 0x80, 0x3C, 0x00])
        let lenient = try seqplay(["info", file])
        XCTAssertEqual(lenient.status, 0)
        XCTAssertTrue(lenient.standardOutput.contains("Warning:   \(file): track 0"), lenient.standardOutput)
        XCTAssertTrue(lenient.standardOutput.contains("End of Track"), lenient.standardOutput)

        let strict = try seqplay(["info", "--strict", file])
        XCTAssertEqual(strict.status, 3)
        XCTAssertEqual(strict.standardOutput, "")
        XCTAssertEqual(strict.standardError.split(separator: "\n").count, 1)
        XCTAssertTrue(strict.standardError.contains("byte 0x"), strict.standardError)
    }

    func testBadAndMissingFiles() throws {
        let truncated = try seqplay(["info", try temporaryFile([0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0])])
        XCTAssertEqual(truncated.status, 3)
        XCTAssertTrue(truncated.standardError.hasPrefix("seqplay: "), truncated.standardError)
        XCTAssertTrue(truncated.standardError.contains("byte 0x"), truncated.standardError)
        XCTAssertEqual(truncated.standardError.split(separator: "\n").count, 1)

        let missing = try seqplay(["info", "/nonexistent/song.mid"])
        XCTAssertEqual(missing.status, 5)
        XCTAssertEqual(try seqplay(["info"]).status, 64) // ArgumentParser's usage error (EX_USAGE)
    }
}
