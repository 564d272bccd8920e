import Foundation
import MIDIFile
import TestSupport
import Testing

/// Our reader against libsmf 1.3 (Tests/Tools/smf-dump.c, run in a child process) over the
/// well-formed corpus: where libsmf loads a file without crashing, both must agree, except where
/// libsmf is known wrong (meta events of 128+ bytes, running status after a meta event, tracks lost
/// after a non-MTrk chunk, format 0 relabelled).
@Suite struct LibSMFDifferentialTests {
    @Test(.enabled(if: Corpus.root != nil, "needs the corpus"))
    func agreesWithLibSMFWhereLibSMFIsRight() throws {
        let files = Corpus.files(in: "wellformed")
        guard let dump = try buildSMFDump() else { return }
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: dump).deletingLastPathComponent()) }
        var agreements = 0, refused: [String] = [], crashed: [String] = []
        var knownWrong: [String] = [], unexplained: [String] = []
        for file in files {
            let name = Corpus.relativePath(file, in: "wellformed")
            let ours = try MIDIFileReader.read(contentsOf: file.path)
            let outcome = try runCommand(URL(fileURLWithPath: dump), [file.path], timeLimit: 10)
            if outcome.killedBySignal || outcome.timedOut {
                crashed.append(name)
                continue
            }
            guard outcome.status == 0 else {
                refused.append("\(name) (\(refusalCause(ours.sequence)))")
                continue
            }
            if outcome.standardOutput == libSMFNotation(ours.sequence) {
                agreements += 1
            } else if let cause = knownLibSMFBug(ours, libSMFOutput: outcome.standardOutput) {
                knownWrong.append("\(name): \(cause)")
            } else {
                unexplained.append(name)
            }
        }
        print("libsmf differential: \(files.count) files; libsmf crashed on \(crashed.count), refused \(refused.count), "
            + "loaded \(files.count - crashed.count - refused.count): \(agreements) agree, "
            + "\(knownWrong.count) differ where libsmf is known wrong, \(unexplained.count) unexplained")
        print("libsmf known wrong:\n  " + knownWrong.joined(separator: "\n  "))
        print("libsmf crashed on: \(crashed)")
        print("libsmf refused: \(refused)")
        #expect(unexplained.isEmpty, "\(unexplained)")
        #expect(agreements > 0)
    }

    /// Compiles smf-dump into a temporary folder; `nil` (with a message) if libsmf is not installed.
    private func buildSMFDump() throws -> String? {
        guard try runShell("pkg-config --exists smf", timeLimit: 120).status == 0 else {
            print("libsmf (libsmf-dev) not installed: libsmf differential test skipped")
            return nil
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smf-dump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = Corpus.packageRoot.appendingPathComponent("Tests/Tools/smf-dump.c").path
        let executable = folder.appendingPathComponent("smf-dump").path
        let build = try runShell("cc -O1 -o '\(executable)' '\(source)' $(pkg-config --cflags --libs smf)", timeLimit: 120)
        #expect(build.status == 0, "building smf-dump failed")
        return build.status == 0 ? executable : nil
    }

    /// A sequence as smf-dump prints it.
    private func libSMFNotation(_ sequence: MusicSequence) -> String {
        var ppqn = 0
        if case .ticksPerQuarter(let ticks) = sequence.division { ppqn = Int(ticks) }
        var lines = ["format \(sequence.format) ppqn \(ppqn) tracks \(sequence.tracks.count)"]
        for (index, track) in sequence.tracks.enumerated() {
            for timed in track.events {
                lines.append("\(index) \(timed.tick) \(ReferenceNotation.hex(libSMFBytes(timed.event)))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An event's bytes as libsmf holds them: status explicit, SysEx from F0 without its length,
    /// metas with their length.
    private func libSMFBytes(_ event: SequenceEvent) -> [UInt8] {
        switch event {
        case .midi(let message): return message.bytes
        case .sysEx(let data): return [0xF0] + data
        case .escape(let data): return [0xF7] + data
        case .meta(let meta):
            let data = meta.data
            return [0xFF, meta.typeByte] + variableLength(data.count) + data
        }
    }

    private func variableLength(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }

    /// The libsmf defect or deliberate difference a file runs into, from what our reader found in it
    /// and libsmf's output; `nil` if none.
    private func knownLibSMFBug(_ result: MIDIFileReadResult, libSMFOutput: String) -> String? {
        let longMeta = result.sequence.tracks.contains { track in
            track.events.contains { if case .meta(let meta) = $0.event { meta.data.count >= 128 } else { false } }
        }
        if longMeta { return "meta event of 128+ bytes (libsmf reads its length as one byte)" }
        if result.warnings.contains(where: { $0.reason == .runningStatusAfterNonChannelEvent }) {
            return "running status after a meta or SysEx event (libsmf turns the notes into metas)"
        }
        if result.warnings.contains(where: { if case .formatZeroWithTracks = $0.reason { true } else { false } }) {
            return "format 0 file with several tracks (libsmf relabels it format 1; we keep 0 and warn)"
        }
        let libSMFTracks = libSMFOutput.prefix { $0 != "\n" }.split(separator: " ").last.flatMap { Int($0) }
        if let libSMFTracks, libSMFTracks < result.sequence.tracks.count {
            return "libsmf loads \(libSMFTracks) of \(result.sequence.tracks.count) tracks (it counts a non-MTrk chunk as a track)"
        }
        return nil
    }

    /// Why libsmf refuses a file we read: the features it does not support.
    private func refusalCause(_ sequence: MusicSequence) -> String {
        var causes: [String] = []
        if sequence.format == 2 { causes.append("format 2") }
        if sequence.tracks.isEmpty { causes.append("no tracks") }
        if case .smpte = sequence.division { causes.append("SMPTE division") }
        return causes.isEmpty ? "no known cause" : causes.joined(separator: ", ")
    }
}
