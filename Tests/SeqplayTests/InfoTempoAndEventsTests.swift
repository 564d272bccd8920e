import Foundation
import MIDICore
import MIDIFile
import TestSupport
import XCTest

/// `seqplay info`'s tempo map table and `--events` list, checked against our tempo map and against mido.
final class InfoTempoAndEventsTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private let song = packageRoot.appendingPathComponent("Songs/beethoven-ode-to-joy.mid").path

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let run = try runCommand(URL(fileURLWithPath: executable), arguments)
        return (run.status, run.standardOutput, run.standardError)
    }

    private func seqplay(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try run(seqplayBinary.path, arguments)
    }

    func testTheReportListsEveryTempoWithItsPlace() throws {
        let map = TempoMap(sequence: try MIDIFileReader.read(contentsOf: song).sequence)
        let result = try seqplay(["info", "--json", song])
        XCTAssertEqual(result.status, 0, result.errors)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let tempos = try XCTUnwrap(report["tempos"] as? [[String: Any]])
        XCTAssertEqual(tempos.count, 18)
        XCTAssertEqual(tempos.map { $0["tick"] as? Int64 }, map.tempoChanges.map(\.tick))
        XCTAssertEqual(tempos.map { $0["seconds"] as? Double }, map.tempoChanges.map { map.seconds(atTick: $0.tick) })
        XCTAssertEqual(tempos.map { $0["microsecondsPerQuarter"] as? Int }, map.tempoChanges.map { Int($0.microsecondsPerQuarter) })
        XCTAssertEqual(tempos[1]["position"] as? String, "19:1:0")

        let text = try seqplay(["info", song]).output.split(separator: "\n").map(String.init)
        XCTAssertTrue(text.contains("  34560  19:1:0         40.000   110.000 BPM (545455 µs per quarter)"), text.joined(separator: "\n"))
        XCTAssertTrue(text.contains("  0      1:1:0          0.000    4/4 time"))
    }

    func testEventsListEveryEventAsMidoDecodesIt() throws {
        let sequence = try MIDIFileReader.read(contentsOf: song).sequence
        let result = try seqplay(["info", "--events", "--json", song])
        XCTAssertEqual(result.status, 0, result.errors)
        let listed = try JSONDecoder().decode([ListedEvent].self, from: Data(result.output.utf8))
        XCTAssertEqual(listed.count, sequence.tracks.map(\.events.count).reduce(0, +))
        XCTAssertEqual(listed.map(\.tick), listed.map(\.tick).sorted(), "all tracks by time")
        let map = TempoMap(sequence: sequence)
        XCTAssertTrue(listed.allSatisfy { $0.seconds == map.seconds(atTick: $0.tick) && $0.position == map.barBeatTick(atTick: $0.tick).description })

        let track = try seqplay(["info", "--events", "--track", "5", song]).output.split(separator: "\n")
        XCTAssertEqual(track.first, "track\ttick\tbar:beat:tick\tseconds\tevent")
        XCTAssertEqual(track.count - 1, sequence.tracks[5].events.count)
        XCTAssertTrue(track.dropFirst().allSatisfy { $0.hasPrefix("5\t") })

        // mido: the same events, types and numbers (mido numbers channels from 0).
        guard let python = Self.midoPython() else { return }
        let script = """
        import json, sys, mido
        out = []
        for index, track in enumerate(mido.MidiFile(sys.argv[1]).tracks):
            tick = 0
            for msg in track:
                tick += msg.time
                fields = {k: v for k, v in vars(msg).items() if k not in ("type", "time") and isinstance(v, int)}
                if "channel" in fields and not msg.is_meta: fields["channel"] += 1
                out.append([index, tick, msg.type, fields])
        print(json.dumps(out))
        """
        let mido = try run(python, ["-c", script, song])
        XCTAssertEqual(mido.status, 0, mido.errors)
        let decoded = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(mido.output.utf8)) as? [[Any]])
        let ours = listed.sorted { ($0.track, $0.tick) < ($1.track, $1.tick) }
        let theirs = decoded.sorted { ($0[0] as! Int, $0[1] as! Int) < ($1[0] as! Int, $1[1] as! Int) }
        XCTAssertEqual(ours.count, theirs.count)
        for (event, reference) in zip(ours, theirs) {
            XCTAssertEqual([event.track, Int(event.tick)], [reference[0] as! Int, reference[1] as! Int])
            XCTAssertEqual(event.type, reference[2] as? String)
            var values = event.values.merging(event.channel.map { ["channel": $0] } ?? [:]) { $1 }
            values.removeValue(forKey: "bpm")
            values.removeValue(forKey: "sharps")
            values.removeValue(forKey: "minor")
            XCTAssertEqual(values, reference[3] as? [String: Int], "\(event)")
        }
    }

    /// One vocabulary: every kind of MIDI message is named as mido names it (type and field names, the
    /// same numbers), in `info --events` and in `monitor`'s lines and JSON alike.
    func testEveryMessageIsNamedAsMidoNamesIt() throws {
        let messages: [MIDIMessage] = [
            .noteOff(channel: 0, note: 60, velocity: 64), .noteOn(channel: 9, note: 36, velocity: 100),
            .polyPressure(channel: 1, note: 61, pressure: 50), .controlChange(channel: 2, controller: 7, value: 99),
            .programChange(channel: 3, program: 19), .channelPressure(channel: 4, pressure: 70),
            .pitchBend(channel: 5, value: 0), .pitchBend(channel: 5, value: 16383),
            .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]), .timeCodeQuarterFrame(0x35), .songPosition(300),
            .songSelect(5), .tuneRequest, .timingClock, .start, .continue, .stop, .activeSensing, .systemReset,
        ]
        let line = MonitoredEvent(.noteOn(channel: 0, note: 60, velocity: 100), time: 0.5, source: "14:0")
        XCTAssertEqual(line.line, "  0.500000  14:0    note_on          1  note=60 (C4) velocity=100")
        let peer = MonitoredEvent(.noteOn(channel: 0, note: 60, velocity: 100), time: 0.5, source: "seqplay song")
        XCTAssertEqual(peer.line, "  0.500000  seqplay song  note_on          1  note=60 (C4) velocity=100",
                       "a source longer than the column is shown whole, not cut to 6 characters")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(line)) as? [String: Any]
        XCTAssertEqual(json?["type"] as? String, "note_on")
        XCTAssertEqual(json?["values"] as? [String: Int], ["note": 60, "velocity": 100])

        guard let python = Self.midoPython() else { return }
        let script = """
        import json, sys, mido
        out = []
        for hex in sys.argv[1:]:
            msg = mido.Message.from_bytes(bytes.fromhex(hex))
            fields = {k: v for k, v in vars(msg).items() if k not in ("type", "time") and isinstance(v, int)}
            if "channel" in fields: fields["channel"] += 1
            out.append([msg.type, fields])
        print(json.dumps(out))
        """
        let hex = messages.map { $0.bytes.map { String(format: "%02x", $0) }.joined() }
        let mido = try run(python, ["-c", script] + hex)
        XCTAssertEqual(mido.status, 0, mido.errors)
        let decoded = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(mido.output.utf8)) as? [[Any]])
        XCTAssertEqual(decoded.count, messages.count)
        for (message, reference) in zip(messages, decoded) {
            let monitored = MonitoredEvent(message, time: nil, source: "x")
            XCTAssertEqual(message.typeName, reference[0] as? String, "\(message)")
            XCTAssertEqual(monitored.type, message.typeName)
            let values = message.namedValues.merging(monitored.channel.map { ["channel": $0] } ?? [:]) { $1 }
            XCTAssertEqual(values, reference[1] as? [String: Int], "\(message)")
        }
    }

    /// The Python that has mido ($SEQPLAY_MIDO_PYTHON, else the venv Scripts/test makes), or nil (the
    /// comparison is skipped, and says so).
    private static func midoPython() -> String? {
        let python = ProcessInfo.processInfo.environment["SEQPLAY_MIDO_PYTHON"] ?? packageRoot.appendingPathComponent(".build-bench/venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("no Python with mido (Scripts/test makes one): mido comparison skipped")
            return nil
        }
        return python
    }
}
