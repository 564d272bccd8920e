import Rendering
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

    /// Files named directly outside the current directory mirror their folders under the folder they have in
    /// common; names that still collide are told apart, the same way whatever order the paths come in.
    func testNoTwoInputsShareAnOutputName() throws {
        let root = try temporaryDirectory()
        for name in ["a/x/song.mid", "a/y/song.mid", "a/y/t.mid", "a/y/t.kar", "d1/k/same.mid", "d2/k/same.mid", "d2/k/other.mid"] {
            try FileManager.default.createDirectory(atPath: ((root + "/" + name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: root + "/" + name, contents: Data("x".utf8))
        }
        let named = BatchInputDiscovery.find([root + "/a/y/song.mid", root + "/a/x/song.mid", root + "/a/y/t.mid", root + "/a/y/t.kar"])
        XCTAssertEqual(named.inputs.map(\.outputName), ["x/song", "y/song", "y/t.kar", "y/t.mid"])
        XCTAssertEqual(named.collisions.map(\.sharedName), ["y/t"])
        XCTAssertEqual(named.collisions.first?.inputs.map(\.path), [root + "/a/y/t.kar", root + "/a/y/t.mid"])
        XCTAssertEqual(named.problems.count, 0)
        XCTAssertEqual(BatchInputDiscovery.find([root + "/a/y/t.kar", root + "/a/y/t.mid", root + "/a/x/song.mid", root + "/a/y/song.mid"])
            .inputs.map(\.outputName), named.inputs.map(\.outputName), "the same names whatever the order")
        // Two directories holding the same relative path: mirrored under the folder the two have in common.
        let folders = BatchInputDiscovery.find([root + "/d1", root + "/d2"])
        XCTAssertEqual(folders.inputs.map(\.outputName), ["d1/k/same", "d2/k/same", "k/other"])
        XCTAssertEqual(folders.collisions.map(\.sharedName), ["k/same"])
        XCTAssertEqual(folders.inputs.first?.outputPath(in: "/out", suffix: ".ch01", pathExtension: "wav"), "/out/d1/k/same.ch01.wav")
    }

    /// A name taken even after the inputs are told apart (`t.mid` keeping its extension is `t.mid.mid`'s name) leaves
    /// the later input out, as a problem naming the other.
    func testAnOutputNameStillTakenIsAProblem() throws {
        let root = try temporaryDirectory()
        for name in ["t.mid", "t.kar", "t.mid.mid"] { _ = FileManager.default.createFile(atPath: root + "/" + name, contents: Data("x".utf8)) }
        let found = BatchInputDiscovery.find([root])
        XCTAssertEqual(found.inputs.map(\.relativePath), ["t.kar", "t.mid"])
        XCTAssertEqual(found.problems.map(\.path), [root + "/t.mid.mid"])
        XCTAssertTrue(found.problems.first?.reason.contains(root + "/t.mid") == true, "\(found.problems)")
    }

    /// With stems, an input whose output is another's stem (`x.ch01.mid` beside `x.mid`) is left out, as a problem.
    func testAnOutputThatIsAnotherInputsStemIsAProblem() throws {
        let inputs = ["x.mid", "x.ch01.mid", "x.ch17.mid", "x.drums.mid", "x.track3.mid", "y.ch01.mid"].map { BatchInput(path: "/in/" + $0, relativePath: $0) }
        let channel = BatchInputDiscovery.separatingStemNames(inputs, stems: .channel)
        XCTAssertEqual(channel.inputs.map(\.relativePath), ["x.mid", "x.ch17.mid", "x.drums.mid", "x.track3.mid", "y.ch01.mid"])
        XCTAssertEqual(channel.problems.map(\.path), ["/in/x.ch01.mid"])
        XCTAssertTrue(channel.problems[0].reason.contains("/in/x.mid's ch01 stem"), channel.problems[0].reason)
        XCTAssertEqual(BatchInputDiscovery.separatingStemNames(inputs, stems: .program).problems.map(\.path), ["/in/x.drums.mid"])
        XCTAssertEqual(BatchInputDiscovery.separatingStemNames(inputs, stems: .track).problems.map(\.path), ["/in/x.track3.mid"])
        XCTAssertEqual(BatchInputDiscovery.separatingStemNames(inputs, stems: nil).inputs, inputs)
    }

    func testListsReadOneAPathALine() {
        XCTAssertEqual(BatchInputDiscovery.paths(fromList: "a.mid\n\nb c.mid\r\n  \n"), ["a.mid", "b c.mid"])
    }
}
