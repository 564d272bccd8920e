import Foundation
import MediaLibrary
import MIDIFile
import TestSupport
import XCTest

/// The corpus in ../shared/corpus indexed: well-formed files agree with the reference decodings,
/// every malformed file is listed as refused (with why) or repaired, and updates read only what changed.
final class CorpusIndexTests: XCTestCase {
    private func corpusLibrary() throws -> (MediaLibrary, ScanSummary) {
        guard FileManager.default.fileExists(atPath: LibraryFixtures.corpus) else { throw XCTSkip("no corpus at \(LibraryFixtures.corpus)") }
        let library = try MediaLibrary(path: try LibraryFixtures.temporaryFolder(self) + "/library.sqlite")
        return (library, try library.add([LibraryFixtures.corpus]))
    }

    func testCorpusIndexAgreesWithTheReferenceDecodings() throws {
        let (library, summary) = try corpusLibrary()
        let files = FileManager.default.enumerator(atPath: LibraryFixtures.corpus)!.compactMap { $0 as? String }
            .filter { ["mid", "midi", "rmi", "kar"].contains(($0 as NSString).pathExtension.lowercased()) }
        XCTAssertEqual(summary.found, files.count)
        XCTAssertEqual(summary.indexed, files.count)

        let everything = try library.songs(LibraryQuery(where: "status = 'ok' or status = 'repaired' or status = 'refused'"))
        XCTAssertEqual(everything.count, files.count, "every file is listed, refused ones with their reason")
        let byPath = Dictionary(uniqueKeysWithValues: everything.map { ($0.path, $0.values) })

        var compared = 0
        let references = LibraryFixtures.corpus + "/reference/wellformed"
        for name in FileManager.default.enumerator(atPath: references)!.compactMap({ $0 as? String }) where name.hasSuffix(".json") {
            let path = LibraryFixtures.corpus + "/wellformed/" + String(name.dropLast(5))
            let row = try XCTUnwrap(byPath[path], path)
            XCTAssertNotEqual(row["status"] as? String, "refused", path)
            let reference = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: references + "/" + name))) as? [String: Any])
            let tracks = try XCTUnwrap(reference["tracks"] as? [[[Any]]])
            XCTAssertEqual(row["format"] as? Int64, (reference["format"] as? Int).map(Int64.init), path)
            XCTAssertEqual(row["tracks"] as? Int64, Int64(tracks.count), path)
            var notes = 0, drums = false, lowest = Int.max, highest = Int.min, ends: [Int] = []
            for track in tracks {
                ends.append(track.compactMap { $0.first as? Int }.max() ?? 0)
                for event in track where event.count == 3 && event[1] as? String == "midi" {
                    let bytes = Self.bytes(event[2] as? String ?? "")
                    guard bytes.count == 3, bytes[0] & 0xF0 == 0x90, bytes[2] > 0 else { continue }
                    notes += 1
                    if bytes[0] & 0x0F == 9 { drums = true } else { lowest = min(lowest, Int(bytes[1])); highest = max(highest, Int(bytes[1])) }
                }
            }
            XCTAssertEqual(row["notes"] as? Int64, Int64(notes), path)
            XCTAssertEqual(row["drums"] as? Bool, drums, path)
            if notes > 0 && lowest <= highest {
                XCTAssertEqual(row["lowest"] as? Int64, Int64(lowest), path)
                XCTAssertEqual(row["highest"] as? Int64, Int64(highest), path)
            }
            if reference["format"] as? Int != 2 {
                XCTAssertEqual(row["ticks"] as? Int64, Int64(ends.max() ?? 0), path)
            }
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 110)

        let malformed = byPath.filter { $0.key.hasPrefix(LibraryFixtures.corpus + "/malformed/") }
        XCTAssertGreaterThan(malformed.count, 600)
        for (path, row) in malformed {
            let status = row["status"] as? String
            XCTAssertTrue(["refused", "repaired", "ok"].contains(status), path)
            if status != "ok" { XCTAssertFalse((row["problem"] as? String ?? "").isEmpty, "\(path) says why it is \(status ?? "")") }
        }
        XCTAssertGreaterThan(malformed.values.filter { $0["status"] as? String == "refused" }.count, 100)
        XCTAssertGreaterThan(malformed.values.filter { $0["status"] as? String == "repaired" }.count, 100)
        XCTAssertEqual(summary.refused.count, everything.filter { $0.values["status"] as? String == "refused" }.count)
    }

    func testUpdateReadsOnlyWhatChanged() throws {
        guard FileManager.default.fileExists(atPath: LibraryFixtures.corpus) else { throw XCTSkip("no corpus at \(LibraryFixtures.corpus)") }
        let folder = try LibraryFixtures.temporaryFolder(self)
        let songs = folder + "/songs"
        try FileManager.default.copyItem(atPath: LibraryFixtures.corpus + "/wellformed", toPath: songs)
        let library = try MediaLibrary(path: folder + "/library.sqlite")
        let first = try library.add([songs])
        XCTAssertEqual(first.read, first.found)
        XCTAssertGreaterThan(first.found, 100)

        let nothing = try library.update()
        XCTAssertEqual(nothing.found, first.found)
        XCTAssertEqual(nothing.read, 0, "nothing changed, so no file is read")
        XCTAssertEqual(nothing.indexed, 0)

        // New content: read and reindexed, alone.
        let changed = songs + "/gh-kovaxis-midly/Clementi.mid"
        try LibraryFixtures.write(LibraryFixtures.song(title: "Replaced", bars: 3), to: changed)
        let afterChange = try library.update()
        XCTAssertEqual(afterChange.read, 1)
        XCTAssertEqual(afterChange.indexed, 1)
        XCTAssertEqual(try library.songs(LibraryQuery(where: "title = 'Replaced'")).map(\.path), [changed])

        // Only the time changed: read to compare its hash, not reindexed.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: changed)
        let touched = try library.update()
        XCTAssertEqual(touched.read, 1)
        XCTAssertEqual(touched.indexed, 0)
        XCTAssertEqual(try library.update().read, 0)

        // Vanished and new files.
        try FileManager.default.removeItem(atPath: changed)
        try LibraryFixtures.write(LibraryFixtures.song(title: "Newcomer"), to: songs + "/new.mid")
        let moved = try library.update()
        XCTAssertEqual(moved.removed, 1)
        XCTAssertEqual(moved.read, 1)
        XCTAssertEqual(try library.songs(LibraryQuery(where: "title = 'Replaced'")).count, 0)
        XCTAssertEqual(try library.songs(LibraryQuery(where: "title = 'Newcomer'")).count, 1)
    }

    func testForeignOrDamagedDatabaseIsRefusedAndLeftAlone() throws {
        let folder = try LibraryFixtures.temporaryFolder(self)
        let damaged = folder + "/damaged.sqlite"
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try junk.write(to: URL(fileURLWithPath: damaged))
        XCTAssertThrowsError(try MediaLibrary(path: damaged)) { error in
            guard case .notADatabase = error as? MediaLibraryError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: damaged)), junk)

        // Another program's SQLite database: made with a seqplay library's own code path, then its marker removed.
        let foreign = folder + "/foreign.sqlite"
        _ = try MediaLibrary(path: foreign)
        let marked = try runCommand(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA application_id=0'); c.commit()", foreign])
        XCTAssertEqual(marked.status, 0, marked.standardError)
        let before = try Data(contentsOf: URL(fileURLWithPath: foreign))
        XCTAssertThrowsError(try MediaLibrary(path: foreign)) { error in
            XCTAssertEqual(error as? MediaLibraryError, .foreignDatabase(path: foreign))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: foreign)), before)
        XCTAssertThrowsError(try MediaLibrary(path: folder + "/absent.sqlite", create: false))
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }
}
