import Foundation
import MIDICore
import MIDIFile
import TestSupport
import XCTest

/// A run that cannot start, or is interrupted, leaves a file the user had at its output path byte for byte as it
/// was (issue 29): `serve -o` and `live -o` (the network address or a control port in use, a SoundFont that does
/// not load, no sequencer), `record`, `-o` renders (a bad font, a bad song, Ctrl-C), and `convert -o`.
final class OutputKeptOnFailureTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let song = packageRoot.appendingPathComponent("Songs/bach-prelude-c.mid").path
    static let font = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
    static let hasSequencer = FileManager.default.fileExists(atPath: "/dev/snd/seq")

    private var scratch: ScratchDirectory!
    /// What the user had at the output paths.
    private let kept = Data("the user's own file, not to be touched\n".utf8)

    override func setUpWithError() throws {
        scratch = try ScratchDirectory(prefix: "seqplay-kept")
        addTeardownBlock { [scratch] in scratch?.remove() }
        for name in ["keep.wav", "keep.mid"] { try kept.write(to: URL(fileURLWithPath: scratch.path(name))) }
        try Data("not a SoundFont".utf8).write(to: URL(fileURLWithPath: scratch.path("bad.sf2")))
        try Data("not a MIDI file".utf8).write(to: URL(fileURLWithPath: scratch.path("bad.mid")))
    }

    /// A socket of `type` bound to 127.0.0.1 on a port the system picks, held until the test ends: its port.
    private func occupiedPort(_ type: Int32) throws -> Int {
        let fd = socket(AF_INET, type, 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        addTeardownBlock { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        XCTAssertTrue(bound)
        if type == Int32(SOCK_STREAM.rawValue) { XCTAssertEqual(listen(fd, 1), 0) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs seqplay with `arguments` (`$DIR` the scratch directory): its exit status is `status`, one line on
    /// standard error says `says`, and the scratch directory holds what it held, `keep.wav` and `keep.mid` as they were.
    private func assertKept(_ arguments: [String], status: Int32, says: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try scratch.contents()
        let run = try runSeqplay(arguments.map { $0.replacingOccurrences(of: "$DIR", with: scratch.url.path) }, timeLimit: 60)
        let described = "seqplay \(arguments.joined(separator: " ")): exit \(run.status), \(run.standardError.debugDescription)"
        XCTAssertEqual(run.status, status, described, file: file, line: line)
        XCTAssertTrue(run.standardError.contains(says), described, file: file, line: line)
        XCTAssertEqual(run.standardError.split(separator: "\n").count, 1, described, file: file, line: line)
        XCTAssertEqual(try scratch.contents(), before, "nothing left or removed: \(described)", file: file, line: line)
        for name in ["keep.wav", "keep.mid"] {
            XCTAssertEqual(FileManager.default.contents(atPath: scratch.path(name)), kept, "\(name) changed: \(described)", file: file, line: line)
        }
    }

    func testServeAndLiveThatCannotStartKeepTheFileAtTheirOutput() throws {
        let network = try occupiedPort(Int32(SOCK_DGRAM.rawValue))
        let shell = try occupiedPort(Int32(SOCK_STREAM.rawValue))
        let free = Int.random(in: 20_000..<30_000) * 2
        let serve = ["serve", "--network", "-o", "$DIR/keep.wav", "--duration", "1"]
        try assertKept(serve + ["--listen", "127.0.0.1:\(network)", "--sf2", Self.font], status: 8, says: "address already in use")
        try assertKept(serve + ["--listen", "127.0.0.1:\(free)", "--sf2", "$DIR/bad.sf2"], status: 4, says: "bad.sf2")
        try assertKept(serve + ["--listen", "127.0.0.1:\(free)", "--sf2", Self.font, "--shell", "127.0.0.1:\(shell)"], status: 8,
                       says: "cannot listen")
        try assertKept(serve + ["--listen", "127.0.0.1:\(free)", "--sf2", Self.font, "--http", "127.0.0.1:\(shell)"], status: 8,
                       says: "cannot listen")
        guard !Self.hasSequencer else { throw XCTSkip("there is an ALSA sequencer: live, serve --ports and record start here") }
        try assertKept(["live", "-o", "$DIR/keep.wav", "--sf2", Self.font, "--duration", "1"], status: 6, says: "sequencer")
        try assertKept(["serve", "--ports", "1", "-o", "$DIR/keep.wav", "--sf2", Self.font, "--duration", "1"], status: 6, says: "sequencer")
        try assertKept(["record", "$DIR/keep.mid", "--duration", "1"], status: 6, says: "sequencer")
    }

    func testRendersAndConversionsThatFailKeepTheFileAtTheirOutput() throws {
        try assertKept([Self.song, "--sf2", "$DIR/bad.sf2", "-o", "$DIR/keep.wav"], status: 4, says: "bad.sf2")
        try assertKept(["$DIR/bad.mid", "--sf2", Self.font, "-o", "$DIR/keep.wav"], status: 3, says: "bad.mid")
        try assertKept(["convert", "$DIR/bad.mid", "-o", "$DIR/keep.mid"], status: 3, says: "bad.mid")
        try assertKept(["convert", Self.song, "--merge", "$DIR/bad.mid", "-o", "$DIR/keep.mid"], status: 3, says: "bad.mid")
    }

    /// Ctrl-C in the middle of a long render: exit 130, the file at `-o` as it was, no temporary file beside it.
    func testAnInterruptedRenderKeepsTheFileAtItsOutput() throws {
        let process = try ChildProcess(seqplayBinary, [Self.song, "--sf2", Self.font, "-o", scratch.path("keep.wav"), "--loop", "100"],
                                       standardError: .capture)
        // Interrupted once the render writes its temporary file (its signal handling is set up before).
        let deadline = Date().addingTimeInterval(60)
        while try scratch.contents().allSatisfy({ !$0.hasSuffix(".tmp") }), process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(process.isRunning, "still rendering when interrupted")
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.exitStatus, 130, process.standardErrorText)
        XCTAssertEqual(process.standardErrorText, "seqplay: interrupted; \(scratch.path("keep.wav")) was not written\n")
        XCTAssertEqual(FileManager.default.contents(atPath: scratch.path("keep.wav")), kept)
        XCTAssertEqual(try scratch.contents().filter { $0.hasSuffix(".tmp") }, [])
    }

    /// A render past full scale into 16-bit says so on one line, with the peak a float render of the same measures;
    /// the float file (which keeps those samples) says nothing.
    func testARenderThatClipsSaysSo() throws {
        let loud = [Self.song, "--sf2", Self.font, "-g", "3", "--end", "3:1"]
        let float = try runSeqplay(loud + ["-o", scratch.path("loud-float.wav"), "--bit-depth", "float"])
        XCTAssertEqual(float.status, 0, float.standardError)
        XCTAssertEqual(float.standardError, "")
        // ffmpeg's astats measures the float file's peak (sox clips float samples to ±1 as it reads them).
        let stats = try runCommand(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-hide_banner", "-nostats", "-i", scratch.path("loud-float.wav"),
                                                                             "-af", "astats=measure_perchannel=none", "-f", "null", "-"])
        let peakLine = try XCTUnwrap(stats.standardError.split(separator: "\n").first { $0.contains("Peak level dB:") }, stats.standardError)
        let peakDecibels = try XCTUnwrap(Double(peakLine.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
        XCTAssertGreaterThan(peakDecibels, 0)
        let clipped = try runSeqplay(loud + ["-o", scratch.path("loud.wav")])
        XCTAssertEqual(clipped.status, 0, clipped.standardError)
        XCTAssertEqual(clipped.standardError,
                       "seqplay: \(scratch.path("loud.wav")): clipped (peak \(String(format: "%+.1f", peakDecibels)) dBFS); lower --gain\n")
        let quiet = try runSeqplay([Self.song, "--sf2", Self.font, "--end", "3:1", "-o", scratch.path("quiet.wav")])
        XCTAssertEqual(quiet.status, 0, quiet.standardError)
        XCTAssertEqual(quiet.standardError, "")
    }

    /// `convert --transpose` says how many notes it pushed past 0...127 and dropped; channel 10 is not transposed.
    func testConvertSaysHowManyNotesTheTransposeDropped() throws {
        let notes: [(channel: UInt8, note: UInt8)] = [(0, 30), (0, 120), (1, 125), (9, 120)]
        var events: [TimedEvent] = []
        for (index, note) in notes.enumerated() {
            events.append(TimedEvent(tick: Int64(index) * 240, .midi(.noteOn(channel: note.channel, note: note.note, velocity: 90))))
            events.append(TimedEvent(tick: Int64(index) * 240 + 120, .midi(.noteOff(channel: note.channel, note: note.note, velocity: 0))))
        }
        events.append(TimedEvent(tick: 1200, .meta(.endOfTrack)))
        try MIDIFileWriter.write(MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: events)]),
                                 to: scratch.path("high.mid"))
        let run = try runSeqplay(["convert", scratch.path("high.mid"), "-o", scratch.path("up.mid"), "--transpose", "10"])
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(run.standardError, "seqplay: --transpose 10 moves 2 notes outside 0...127; they are not written\n")
        let written = try MIDIFileReader.read(contentsOf: scratch.path("up.mid")).sequence
        let noteOns = written.tracks.flatMap(\.events).compactMap { timed -> UInt8? in
            if case .midi(.noteOn(_, let note, let velocity)) = timed.event, velocity > 0 { return note }
            return nil
        }
        XCTAssertEqual(noteOns, [40, 120])
        let none = try runSeqplay(["convert", scratch.path("high.mid"), "-o", scratch.path("down.mid"), "--transpose", "-2"])
        XCTAssertEqual(none.standardError, "")
    }
}
