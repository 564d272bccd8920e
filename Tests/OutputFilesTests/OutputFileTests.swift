import Foundation
@testable import SeqplaySupport
import TestSupport
import XCTest

/// Whole files and appended lines written through `OutputTarget`: files replaced atomically with
/// their permissions, symbolic links followed, devices and FIFOs written through, a full device an
/// error naming the file, and nothing left behind when a write fails.
final class OutputFileTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory(prefix: "output") }
    override func tearDown() { scratch?.remove() }

    func text(_ name: String) throws -> String { try String(contentsOfFile: scratch.path(name), encoding: .utf8) }

    func testAFileIsReplacedKeepingItsPermissions() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: scratch.path("out.txt")))
        XCTAssertEqual(chmod(scratch.path("out.txt"), 0o640), 0)
        try OutputFile.write(Data("new".utf8), to: scratch.path("out.txt"))
        XCTAssertEqual(try text("out.txt"), "new")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: scratch.path("out.txt"))[.posixPermissions] as? Int, 0o640)
        XCTAssertEqual(try scratch.contents(), ["out.txt"])
    }

    func testASymbolicLinksTargetIsReplacedAndTheLinkKept() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: scratch.path("real.txt")))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.txt"), withDestinationPath: "real.txt")
        try OutputFile.write(Array("new".utf8), to: scratch.path("link.txt"))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("link.txt")), "real.txt")
        XCTAssertEqual(try text("real.txt"), "new")
    }

    func testDevicesAreWrittenThroughAndAFullOneIsAnError() throws {
        try OutputFile.write(Data("x".utf8), to: "/dev/null")
        var status = stat()
        XCTAssertEqual(stat("/dev/null", &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR)
        XCTAssertThrowsError(try OutputFile.write(Data("x".utf8), to: "/dev/full")) { error in
            XCTAssertEqual(error as? OutputFileError, OutputFileError(path: "/dev/full", problem: .writeFailed(String(cString: strerror(ENOSPC)))))
            XCTAssertEqual("\(error)", "/dev/full could not be written: No space left on device")
        }
    }

    func testAFIFOsReaderGetsTheBytes() throws {
        XCTAssertEqual(mkfifo(scratch.path("fifo"), 0o644), 0)
        nonisolated(unsafe) var received = Data()
        let done = DispatchSemaphore(value: 0)
        let fifo = scratch.path("fifo")
        Thread.detachNewThread {
            received = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            done.signal()
        }
        try OutputFile.write(Data(repeating: 7, count: 200_000), to: fifo)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(received, Data(repeating: 7, count: 200_000))
        XCTAssertEqual(try scratch.contents(), ["fifo"])
    }

    func testRefusalsLeaveEverythingAsItWas() throws {
        try Data("read-only".utf8).write(to: URL(fileURLWithPath: scratch.path("locked.txt")))
        XCTAssertEqual(chmod(scratch.path("locked.txt"), 0o444), 0)
        try Data("input".utf8).write(to: URL(fileURLWithPath: scratch.path("in.mid")))
        try FileManager.default.createDirectory(atPath: scratch.path("folder"), withIntermediateDirectories: false)
        let cases: [(String, OutputFileError.Problem)] = [
            (scratch.path("locked.txt"), .readOnly),
            (scratch.path("folder"), .isDirectory),
            (scratch.path("in.mid"), .isInput(scratch.path("in.mid"))),
            (scratch.path("missing/out.txt"), .noDirectory(scratch.path("missing"))),
        ]
        let before = try scratch.contents()
        for (target, problem) in cases {
            XCTAssertThrowsError(try OutputFile.write(Data("x".utf8), to: target, protecting: [scratch.path("in.mid")])) { error in
                XCTAssertEqual((error as? OutputFileError)?.problem, problem, target)
            }
        }
        XCTAssertEqual(try scratch.contents(), before)
        XCTAssertEqual(try text("locked.txt"), "read-only")
        XCTAssertEqual(try text("in.mid"), "input")
        XCTAssertEqual("\(OutputFileError(path: "x", problem: .isDirectory))", "x is a directory")
    }

    func testAppendedLinesReplaceTheFileAtOnceAndAreKeptAsWritten() throws {
        try Data("old manifest\n".utf8).write(to: URL(fileURLWithPath: scratch.path("m.jsonl")))
        XCTAssertEqual(chmod(scratch.path("m.jsonl"), 0o600), 0)
        let file = try AppendingOutputFile(path: scratch.path("m.jsonl"))
        XCTAssertEqual(try text("m.jsonl"), "", "replaced by an empty file when opened")
        try file.append(Data("one\n".utf8))
        XCTAssertEqual(try text("m.jsonl"), "one\n", "each line is in the file as soon as it is appended")
        try file.append(Data("two\n".utf8))
        XCTAssertEqual(try text("m.jsonl"), "one\ntwo\n")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: scratch.path("m.jsonl"))[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try scratch.contents(), ["m.jsonl"])
    }

    func testAppendingToAFullDeviceFails() throws {
        let file = try AppendingOutputFile(path: "/dev/full")
        XCTAssertThrowsError(try file.append(Data("line\n".utf8))) { error in
            XCTAssertEqual((error as? OutputFileError)?.problem, .writeFailed(String(cString: strerror(ENOSPC))))
        }
        XCTAssertThrowsError(try AppendingOutputFile(path: scratch.path("folder-missing/m.jsonl")))
    }
}
