import Foundation
import MediaLibrary
import MIDIFile
import XCTest

/// Every operator and field of the query language on a small library of songs written here,
/// hostile titles included, and the errors a mistaken query gets.
final class QueryTests: XCTestCase {
    private var library: MediaLibrary!

    override func setUpWithError() throws {
        let folder = try LibraryFixtures.temporaryFolder(self)
        let songs: [(String, MusicSequence)] = [
            ("waltz.mid", LibraryFixtures.song(title: "Slow Waltz", bpm: 100, signature: (3, 4), key: (-1, true),
                                                programs: [(0, 35), (1, 40)], bars: 8, notePitch: 50, marker: "Intro", lyric: "la")),
            ("drums.mid", LibraryFixtures.song(title: "Drum Loop", bpm: 150, programs: [(9, 0), (0, 0)], bars: 4)),
            ("quoted.mid", LibraryFixtures.song(title: "It's \"quoted\"")),
            ("drop.mid", LibraryFixtures.song(title: "'; DROP TABLE songs; --")),
            ("unicode.mid", LibraryFixtures.song(title: "Ünïcödé 漢字 Waltz", bpm: 200, signature: (3, 4), programs: [(0, 73)],
                                                  bars: 4, notePitch: 84, format: 0)),
            ("percent.mid", LibraryFixtures.song(title: "100% _Percent_", bpm: 60, programs: [(0, 24)], bars: 1)),
        ]
        for (name, song) in songs { try LibraryFixtures.write(song, to: folder + "/" + name) }
        try Data([0x4D, 0x54, 0x68, 0x64, 0, 0]).write(to: URL(fileURLWithPath: folder + "/broken.mid"))
        try FileManager.default.copyItem(atPath: SoundFontFixture.shipped, toPath: folder + "/gm.sf2")
        library = try MediaLibrary(path: folder + "/library.sqlite")
        let summary = try library.add([folder])
        XCTAssertEqual(summary.found, 8)
        XCTAssertEqual(summary.refused.map { ($0.path as NSString).lastPathComponent }, ["broken.mid"])
    }

    private func titles(_ condition: String, sort: String? = nil, limit: Int? = nil) throws -> [String] {
        try library.songs(LibraryQuery(where: condition, sort: sort, limit: limit)).map { $0.values["title"] as? String ?? "" }
    }

    private func titleSet(_ condition: String) throws -> Set<String> { Set(try titles(condition)) }

    private func queryError(_ condition: String, file: StaticString = #filePath, line: UInt = #line) -> QueryError? {
        do {
            _ = try library.songs(LibraryQuery(where: condition))
            XCTFail("'\(condition)' was accepted", file: file, line: line)
        } catch {
            if case .query(let error) = error { return error }
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
    }

    func testNumberComparisons() throws {
        XCTAssertEqual(try titleSet("duration > 10"), ["Slow Waltz"])  // 8 bars of 3/4 at 100 BPM: 14.4 s
        XCTAssertEqual(try titleSet("duration < 3.7"), ["Ünïcödé 漢字 Waltz"])  // 4 × 3 × 0.3 s = 3.6 s
        XCTAssertEqual(try titleSet("tempo >= 150"), ["Drum Loop", "Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("tempo <= 100"), ["Slow Waltz", "100% _Percent_"])
        XCTAssertEqual(try titleSet("tempo = 60"), ["100% _Percent_"])
        XCTAssertEqual(try titleSet("tempo != 120").count, 4)
        XCTAssertEqual(try titleSet("format = 0"), ["Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("bars = 8 and tracks = 3 and notes = 16"), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("lowest = 84 and highest = 84"), ["Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("polyphony >= 2"), ["Slow Waltz", "Drum Loop"])
        XCTAssertEqual(try titleSet("channels = 2 and ppq = 480 and tempo_changes = 0 and tempo_min = 100 and tempo_max = 100"), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("program = 35"), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("channel = 10"), ["Drum Loop"])
        XCTAssertEqual(try titleSet("markers = 1 and repairs = 0 and size > 0 and ticks = 11520"), ["Slow Waltz"])
    }

    func testTextFieldsIgnoreCaseAndManyValuedFieldsMatchAnyValue() throws {
        XCTAssertEqual(try titleSet("title contains \"waltz\""), ["Slow Waltz", "Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("title = 'slow WALTZ'"), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("title != 'slow waltz'").count, 5)
        XCTAssertEqual(try titleSet("time_signature = 3/4"), ["Slow Waltz", "Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("key = \"D minor\""), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("instrument = \"Fretless Bass\""), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("family = \"Strings\""), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("family = Pipe"), ["Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("instrument contains 'guitar'"), ["100% _Percent_"])
        XCTAssertEqual(try titleSet("instrument != \"Acoustic Grand Piano\""), ["Slow Waltz", "Ünïcödé 漢字 Waltz", "100% _Percent_"])
        XCTAssertEqual(try titleSet("marker contains 'intr'"), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("file = 'drums.mid'"), ["Drum Loop"])
        XCTAssertEqual(try titleSet("path contains 'percent'"), ["100% _Percent_"])
    }

    func testFlagsAndLogic() throws {
        XCTAssertEqual(try titleSet("drums"), ["Drum Loop"])
        XCTAssertEqual(try titleSet("family = \"Drums\""), ["Drum Loop"])
        XCTAssertEqual(try titleSet("not drums").count, 5)
        XCTAssertEqual(try titleSet("drums = false").count, 5)
        XCTAssertEqual(try titleSet("lyrics"), ["Slow Waltz"])
        XCTAssertEqual(try titleSet("not text and not smpte").count, 6)
        XCTAssertEqual(try titleSet("(family = \"Strings\" or drums) and not duration > 10"), ["Drum Loop"])
        XCTAssertEqual(try titleSet("family = \"Strings\" or drums and duration > 10"), ["Slow Waltz"])  // and binds tighter
        XCTAssertEqual(try titleSet("not (tempo > 100 or tempo < 70)"), ["Slow Waltz"])
    }

    func testHostileTextIsJustText() throws {
        XCTAssertEqual(try titleSet("title = \"'; DROP TABLE songs; --\""), ["'; DROP TABLE songs; --"])
        XCTAssertEqual(try titleSet("title contains \"\\\"quoted\\\"\""), ["It's \"quoted\""])
        XCTAssertEqual(try titleSet("title contains \"It's\""), ["It's \"quoted\""])
        XCTAssertEqual(try titleSet("title contains '%'"), ["100% _Percent_"])  // no LIKE wildcards
        XCTAssertEqual(try titleSet("title contains '_'"), ["100% _Percent_"])
        XCTAssertEqual(try titleSet("title contains \"漢字\""), ["Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("title contains 'ÜNÏCÖDÉ'"), ["Ünïcödé 漢字 Waltz"])
        XCTAssertEqual(try titleSet("title = \"x') OR 1=1 --\""), [])
        XCTAssertEqual(try titleSet("").count, 6)  // the tables are intact
    }

    func testRefusedFilesOnlyWhenAsked() throws {
        let refused = try library.songs(LibraryQuery(where: "status = 'refused'"))
        XCTAssertEqual(refused.map { ($0.path as NSString).lastPathComponent }, ["broken.mid"])
        XCTAssertTrue((refused[0].values["problem"] as? String)?.contains("broken.mid") ?? false)
        XCTAssertEqual(try library.songs(LibraryQuery(where: "status != 'refused'")).count, 6)
    }

    func testSortLimitAndGroups() throws {
        XCTAssertEqual(try titles("", sort: "duration:desc", limit: 2), ["Slow Waltz", "Drum Loop"])
        XCTAssertEqual(try titles("tempo < 130", sort: "title"), ["'; DROP TABLE songs; --", "100% _Percent_", "It's \"quoted\"", "Slow Waltz"])
        let signatures = try library.songGroups(LibraryQuery(), by: "time_signature")
        XCTAssertEqual(signatures.map(\.value), ["4/4", "3/4"])
        XCTAssertEqual(signatures.map(\.count), [4, 2])
        XCTAssertEqual(signatures[1].totalDuration ?? 0, 14.4 + 3.6, accuracy: 1e-9)
        let drums = try library.songGroups(LibraryQuery(where: "tempo >= 120"), by: "drums")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: drums.map { ($0.value ?? "", $0.count) }), ["0": 3, "1": 1])
        XCTAssertEqual(try library.songGroups(LibraryQuery(), by: "family").first?.value, "Piano")
    }

    func testJSONRowsCarryEveryField() throws {
        let row = try XCTUnwrap(library.songs(LibraryQuery(where: "title = 'Slow Waltz'")).first)
        XCTAssertEqual(row.values["instrument"] as? [String], ["Fretless Bass", "Violin"])
        XCTAssertEqual(row.values["family"] as? [String], ["Bass", "Strings"])
        XCTAssertEqual(row.values["key"] as? [String], ["D minor"])
        XCTAssertEqual(row.values["drums"] as? Bool, false)
        XCTAssertEqual(row.values["duration"] as? Double ?? 0, 14.4, accuracy: 1e-9)
        XCTAssertNotNil(try JSONSerialization.data(withJSONObject: row.values))
    }

    func testPresetQueries() throws {
        let pianos = try library.presets(LibraryQuery(where: "name contains 'piano'"))
        XCTAssertFalse(pianos.isEmpty)
        XCTAssertTrue(pianos.allSatisfy { ($0.values["name"] as? String)?.lowercased().contains("piano") ?? false })
        let all = try library.presets(LibraryQuery())
        let drums = try library.presets(LibraryQuery(where: "bank = 128 and font = 'seqplay GM'"))
        XCTAssertEqual(drums.count, all.filter { $0.values["bank"] as? Int64 == 128 }.count)
        XCTAssertEqual(try library.presets(LibraryQuery(where: "program > 127")).count, 0)
    }

    func testMistakesNameThePositionAndTheFields() throws {
        let unknown = try XCTUnwrap(queryError("duration < 3 and colour = 'red'"))
        XCTAssertEqual(unknown.position, 18)
        XCTAssertTrue(unknown.fields.contains("instrument") && unknown.fields.contains("time_signature"))
        XCTAssertTrue(unknown.description.contains("unknown field 'colour' at character 18"), unknown.description)
        XCTAssertEqual(queryError("title = \"open")?.position, 9)
        XCTAssertEqual(queryError("duration < 3 3")?.position, 14)
        XCTAssertEqual(queryError("(duration < 3")?.position, 14)
        XCTAssertEqual(queryError("duration contains 3")?.position, 1)
        XCTAssertEqual(queryError("title < 3")?.position, 1)
        XCTAssertEqual(queryError("duration = long")?.position, 12)
        XCTAssertEqual(queryError("tempo")?.position, 1)
        XCTAssertEqual(queryError("drums = maybe")?.position, 1)
        XCTAssertEqual(queryError("tempo > ")?.position, 9)
        XCTAssertEqual(queryError("tempo ! 3")?.position, 7)
        XCTAssertEqual(queryError("and drums")?.position, 1)
        XCTAssertThrowsError(try library.songs(LibraryQuery(sort: "instrument")))
        XCTAssertThrowsError(try library.songGroups(LibraryQuery(), by: "colour"))
    }
}

enum SoundFontFixture {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
}
