import Foundation
import MIDICore
import MIDIFile
import TestSupport
import XCTest

/// `seqplay info` and `seqplay library add` stream a song's report from the mapped file (issue 24):
/// on a song of half a million notes their peak memory exceeds that on a song of a few notes by about
/// the file's size, where holding the song as a sequence took 24 bytes an event more (24 MB here).
final class DenseInfoTests: XCTestCase {
    private static let time = "/usr/bin/time"

    private func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dense-info-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// A format 1 song of `tracks` tracks of `notesPerTrack` notes each (a note-on and a note-off apiece).
    private func song(at path: String, tracks: Int, notesPerTrack: Int) throws {
        let sequence = MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: (0..<tracks).map { track in
            var events: [TimedEvent] = []
            events.reserveCapacity(2 * notesPerTrack + 1)
            let channel = UInt8(track % 16)
            for note in 0..<notesPerTrack {
                let key = UInt8(36 + (note * 7 + track) % 60)
                events.append(TimedEvent(tick: Int64(note * 12), .midi(.noteOn(channel: channel, note: key, velocity: 90))))
                events.append(TimedEvent(tick: Int64(note * 12 + 10), .midi(.noteOff(channel: channel, note: key, velocity: 0))))
            }
            events.append(TimedEvent(tick: Int64(notesPerTrack * 12), .meta(.endOfTrack)))
            return MusicTrack(events: events)
        })
        try Data(try MIDIFileWriter.write(sequence)).write(to: URL(fileURLWithPath: path))
    }

    /// Runs seqplay under GNU time: its peak resident set in kilobytes and its standard output.
    private func peakKilobytes(_ arguments: [String]) throws -> (kilobytes: Int, output: String) {
        let run = try runCommand(URL(fileURLWithPath: Self.time), ["-f", "peak %M", seqplayBinary.path] + arguments, timeLimit: 120)
        XCTAssertEqual(run.status, 0, run.standardError)
        let line = try XCTUnwrap(run.standardError.split(separator: "\n").last { $0.hasPrefix("peak ") })
        return (try XCTUnwrap(Int(line.dropFirst(5))), run.standardOutput)
    }

    func testInfoAndLibraryAddMemoryDoesNotGrowWithTheEvents() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.time) else { throw XCTSkip("needs GNU time at \(Self.time)") }
        let folder = try temporaryFolder()
        let small = folder + "/small.mid", dense = folder + "/dense.mid"
        try song(at: small, tracks: 16, notesPerTrack: 4)
        try song(at: dense, tracks: 16, notesPerTrack: 31_250)
        let fileKilobytes = Int(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dense)[.size] as? NSNumber).intValue / 1024)

        for (arguments, says) in [(["info"], "31250 notes"), (["info", "--json"], "500000")] {
            let base = try peakKilobytes(arguments + [small])
            let measured = try peakKilobytes(arguments + [dense])
            let grown = measured.kilobytes - base.kilobytes
            print("seqplay \(arguments.joined(separator: " ")): peak \(base.kilobytes) KB on 64 notes, \(measured.kilobytes) KB on 500k notes "
                + "(\(grown) KB more; the file is \(fileKilobytes) KB)")
            XCTAssertTrue(measured.output.contains(says), "the report counts the notes: \(measured.output.prefix(600))")
            XCTAssertLessThan(grown, fileKilobytes + 12 * 1024, "memory grows with the file's bytes, not with its 1M events (24 MB as a sequence)")
        }
        let base = try peakKilobytes(["library", "add", "--db", folder + "/small.sqlite", small])
        let measured = try peakKilobytes(["library", "add", "--db", folder + "/dense.sqlite", dense])
        let grown = measured.kilobytes - base.kilobytes
        print("seqplay library add: peak \(base.kilobytes) KB on 64 notes, \(measured.kilobytes) KB on 500k notes (\(grown) KB more)")
        XCTAssertLessThan(grown, fileKilobytes + 12 * 1024)
        let notes = try runSeqplay(["library", "query", "--db", folder + "/dense.sqlite", "--json"])
        XCTAssertTrue(notes.standardOutput.contains("500000"), notes.standardOutput)
    }
}
