import Foundation
import TestSupport
import XCTest

/// Runs the built `seqplay library`, `info` (SoundFonts), `roll` and `waveform` and checks what they print and how they exit.
final class LibraryCommandTests: XCTestCase {
    private static let corpus = ProcessInfo.processInfo.environment["SEQPLAY_CORPUS"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus").path
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    private func seqplay(_ arguments: [String]) throws -> CommandRun {
        try runCommand(seqplayBinary, arguments)
    }

    private func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("library-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// What the index holds for each well-formed corpus file is what `seqplay info --json` says about it.
    func testIndexAgreesWithInfoJSON() throws {
        guard FileManager.default.fileExists(atPath: Self.corpus) else { throw XCTSkip("no corpus") }
        let folder = try temporaryFolder()
        let db = folder + "/library.sqlite"
        let wellformed = Self.corpus + "/wellformed"
        let add = try seqplay(["library", "add", "--db", db, wellformed])
        XCTAssertEqual(add.status, 0, add.standardError)
        XCTAssertFalse(add.standardError.contains("files/s"), "no progress bar when standard error is not a terminal")
        XCTAssertTrue(add.standardOutput.contains(" indexed"), add.standardOutput)
        let query = try seqplay(["library", "query", "--db", db, "--json"])
        XCTAssertEqual(query.status, 0, query.standardError)
        let rows = try XCTUnwrap(try json(query.standardOutput) as? [[String: Any]])
        XCTAssertGreaterThan(rows.count, 110)
        for row in rows {
            let path = try XCTUnwrap(row["path"] as? String)
            let info = try seqplay(["info", "--json", path])
            XCTAssertEqual(info.status, 0, path)
            let report = try XCTUnwrap(try json(info.standardOutput) as? [String: Any])
            let duration = report["duration"] as? [String: Any], tempo = report["tempo"] as? [String: Any]
            let notes = report["notes"] as? [String: Any], tracks = report["tracks"] as? [[String: Any]] ?? []
            func same(_ field: String, _ value: Any?) {
                XCTAssertEqual(row[field].map { "\($0)" }, value.map { "\($0)" }, "\(field) of \(path)")
            }
            same("format", report["format"])
            same("tracks", tracks.count)
            same("duration", duration?["seconds"])
            same("bars", duration?["bars"])
            same("ticks", duration?["ticks"])
            same("tempo", tempo?["initialBPM"])
            same("tempo_min", tempo?["minimumBPM"])
            same("tempo_max", tempo?["maximumBPM"])
            same("tempo_changes", tempo?["changes"])
            same("notes", notes?["count"])
            same("polyphony", notes?["polyphonyPeak"])
            same("lowest", notes?["lowest"])
            same("highest", notes?["highest"])
            XCTAssertEqual(row["drums"] as? Bool, notes?["drums"] as? Bool, path)
            same("repairs", (report["warnings"] as? [String])?.count)
            same("markers", (report["markers"] as? [Any])?.count)
            XCTAssertEqual(row["time_signature"] as? [String], Self.distinct((report["timeSignatures"] as? [[String: Any]])?.compactMap { $0["value"] as? String }), path)
            XCTAssertEqual(row["key"] as? [String], Self.distinct((report["keySignatures"] as? [[String: Any]])?.compactMap { $0["value"] as? String }), path)
            let instruments = tracks.flatMap { ($0["programs"] as? [[String: Any]] ?? []).compactMap { $0["instrument"] as? String } }
            XCTAssertEqual(Set(row["instrument"] as? [String] ?? []), Set(instruments), path)
            XCTAssertEqual(row["title"] as? String, report["title"] as? String, path)
        }
    }

    private static func distinct(_ values: [String]?) -> [String] {
        var seen = Set<String>()
        return (values ?? []).filter { seen.insert($0).inserted }
    }

    func testQueryMistakesExit64AndNameTheFields() throws {
        let folder = try temporaryFolder()
        let db = folder + "/library.sqlite"
        XCTAssertEqual(try seqplay(["library", "add", "--db", db, Self.packageRoot + "/Songs"]).status, 0)
        let bad = try seqplay(["library", "query", "--db", db, "--where", "duration < 3 and colour = 'red'"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.standardError.contains("unknown field 'colour' at character 18"), bad.standardError)
        XCTAssertTrue(bad.standardError.contains("time_signature"), bad.standardError)
        XCTAssertEqual(bad.standardOutput, "")
        XCTAssertEqual(try seqplay(["library", "query", "--db", db, "--sort", "instrument"]).status, 64)
        XCTAssertEqual(try seqplay(["library", "query", "--db", db, "--limit", "-1"]).status, 64)

        let paths = try seqplay(["library", "query", "--db", db, "--where", "duration > 0", "--paths"])
        XCTAssertEqual(paths.status, 0, paths.standardError)
        let lines = paths.standardOutput.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix(Self.packageRoot + "/Songs/") && $0.hasSuffix(".mid") }, paths.standardOutput)
        let timed = try seqplay(["library", "query", "--db", db, "--where", "duration > 0", "--paths", "--timing"])
        XCTAssertEqual(timed.standardOutput, paths.standardOutput, "--timing leaves the data on stdout unchanged")
        XCTAssertNotNil(timed.standardError.range(of: #"^timing: open [0-9.]+ ms, query [0-9.]+ ms\n$"#, options: .regularExpression),
                        timed.standardError)
        let groups = try seqplay(["library", "query", "--db", db, "--group-by", "family", "--json"])
        XCTAssertEqual(groups.status, 0, groups.standardError)
        XCTAssertFalse((try json(groups.standardOutput) as? [[String: Any]])?.isEmpty ?? true)
    }

    func testHelpNamesEveryField() throws {
        let help = try seqplay(["help", "library"])
        for field in ["duration", "tempo", "time_signature", "key", "instrument", "family", "drums", "format", "title", "polyphony", "bank"] {
            XCTAssertTrue(help.standardOutput.contains("  \(field) "), "\(field) in\n\(help.standardOutput)")
        }
    }

    func testDamagedDatabaseIsAClearErrorAndUntouched() throws {
        let folder = try temporaryFolder()
        let db = folder + "/notes.sqlite"
        let text = Data("my notes, not a database\n".utf8) + Data(repeating: 0x41, count: 2000)
        try text.write(to: URL(fileURLWithPath: db))
        let run = try seqplay(["library", "add", "--db", db, Self.packageRoot + "/Songs"])
        XCTAssertEqual(run.status, 5)
        XCTAssertTrue(run.standardError.contains("\(db) is not a seqplay library"), run.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), text)
        XCTAssertEqual(try seqplay(["library", "query", "--db", folder + "/none.sqlite"]).status, 5)
    }

    /// A path to add that does not exist (as the system resolves it: `nosuch/..` does not), and a new `--db` in a
    /// folder that does not exist, are refused (exit 5, one line) before anything is made: no database, no folder.
    func testWhatDoesNotExistIsRefusedBeforeAnythingIsMade() throws {
        let folder = try temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/empty", withIntermediateDirectories: false)
        for (paths, db, says) in [([folder + "/nosuch"], folder + "/a.sqlite", "nosuch cannot be read: no such file or folder"),
                                  ([folder + "/empty/nosuch/.."], folder + "/a.sqlite", "nosuch/.. cannot be read"),
                                  ([Self.packageRoot + "/Songs", ""], folder + "/a.sqlite", "an empty path names no file or folder"),
                                  ([Self.packageRoot + "/Songs"], folder + "/new/a.sqlite", "directory \(folder)/new does not exist")] {
            let run = try seqplay(["library", "add", "--db", db] + paths)
            XCTAssertEqual(run.status, 5, "\(paths) \(db): \(run.standardError)")
            XCTAssertEqual(run.standardError.split(separator: "\n").count, 1, run.standardError)
            XCTAssertTrue(run.standardError.contains(says), run.standardError)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["empty"], "\(paths) \(db)")
        }
        let add = try seqplay(["library", "add", "--db", folder + "/empty/a.sqlite", Self.packageRoot + "/Songs"])
        XCTAssertEqual(add.status, 0, add.standardError)
        XCTAssertTrue(add.standardOutput.hasPrefix("3 files found"), add.standardOutput)
    }

    func testInfoDescribesASoundFont() throws {
        let font = Self.packageRoot + "/SoundFonts/seqplay-gm.sf2"
        let text = try seqplay(["info", font])
        XCTAssertEqual(text.status, 0, text.standardError)
        XCTAssertTrue(text.standardOutput.contains("Name:      seqplay GM"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("  0:0 "), text.standardOutput)
        let json = try seqplay(["info", "--json", font])
        let object = try XCTUnwrap(try self.json(json.standardOutput) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "SF2")
        XCTAssertFalse((object["presets"] as? [[String: Any]])?.isEmpty ?? true)

        let broken = try temporaryFolder() + "/broken.sf2"
        try Data(try Data(contentsOf: URL(fileURLWithPath: font)).prefix(5000)).write(to: URL(fileURLWithPath: broken))
        let refused = try seqplay(["info", broken])
        XCTAssertEqual(refused.status, 4)
        XCTAssertTrue(refused.standardError.contains(broken) && refused.standardError.contains("truncated"), refused.standardError)
    }

    func testRollAndWaveformWritePictures() throws {
        let folder = try temporaryFolder()
        let song = Self.packageRoot + "/Songs/bach-prelude-c.mid"
        for ext in ["png", "svg", "pdf"] {
            let run = try seqplay(["roll", song, "-o", folder + "/roll." + ext, "--start", "2:1", "--end", "6:1", "--width", "900"])
            XCTAssertEqual(run.status, 0, run.standardError)
            XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: folder + "/roll." + ext)[.size] as? Int) ?? 0, 500)
        }
        XCTAssertEqual(try seqplay(["roll", song, "-o", folder + "/roll.bmp"]).status, 64)
        let wav = folder + "/song.wav"
        let render = try seqplay([song, "--sf2", Self.packageRoot + "/SoundFonts/seqplay-gm.sf2", "-o", wav, "--end", "4:1"])
        XCTAssertEqual(render.status, 0, render.standardError)
        let rendered = try seqplay([song, "--sf2", Self.packageRoot + "/SoundFonts/seqplay-gm.sf2", "-o", folder + "/again.wav",
                                    "--end", "2:1", "--waveform", folder + "/again.svg"])
        XCTAssertEqual(rendered.status, 0, rendered.standardError)
        XCTAssertTrue((try? String(contentsOfFile: folder + "/again.svg", encoding: .utf8))?.contains("<svg") ?? false)
        XCTAssertEqual(try seqplay([song, "-o", "-", "--waveform", folder + "/x.png"]).status, 64)
        let wave = try seqplay(["waveform", wav, "-o", folder + "/wave.png", "--song", song])
        XCTAssertEqual(wave.status, 0, wave.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/wave.png"))
        XCTAssertEqual(try seqplay(["waveform", folder + "/missing.wav", "-o", folder + "/x.png"]).status, 5)
    }
}
