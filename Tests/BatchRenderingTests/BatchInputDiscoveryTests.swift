import BatchRendering
import Foundation
import XCTest

final class BatchInputDiscoveryTests: BatchTestCase {
    func testFindsMIDIFilesRecursivelyWithPathsRelativeToTheDirectoryGiven() throws {
        let root = try temporaryDirectory()
        let written = try writeCorpus(in: root, count: 5, seconds: 1)
        _ = FileManager.default.createFile(atPath: root + "/notes.txt", contents: Data("x".utf8))
        let named = ["set1/UPPER.MID", "set1/karaoke.kar", "set1/wrapped.rmi", "set1/plain.smf"]
        for name in named { _ = FileManager.default.createFile(atPath: root + "/" + name, contents: Data("x".utf8)) }
        let found = BatchInputDiscovery.discover([root, root + "/nowhere"])
        XCTAssertEqual(found.inputs.map(\.relativePath), (written + named).sorted())
        XCTAssertEqual(found.problems.map(\.path), [root + "/nowhere"])
        let input = try XCTUnwrap(found.inputs.first { $0.relativePath == "set1/deeper/song1.mid" })
        XCTAssertEqual(input.outputPath(in: "/out", pathExtension: "flac"), "/out/set1/deeper/song1.flac")
        XCTAssertTrue(FileManager.default.fileExists(atPath: input.path))
    }

    func testFileGivenByAPathOutsideTheCurrentDirectoryKeepsItsName() throws {
        let root = try temporaryDirectory()
        try writeCorpus(in: root, count: 2, seconds: 1)
        let found = BatchInputDiscovery.discover([root + "/set1/deeper/song1.mid"])
        XCTAssertEqual(found.inputs.map(\.relativePath), ["song1.mid"])
    }

    func testListsReadOneAPathALine() {
        XCTAssertEqual(BatchInputDiscovery.paths(fromList: "a.mid\n\nb c.mid\r\n  \n"), ["a.mid", "b c.mid"])
    }
}
