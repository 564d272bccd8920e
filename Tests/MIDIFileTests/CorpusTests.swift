import Foundation
import MIDIFile
import Testing

/// The reader over the shared corpus: well-formed files read and match mido's reference decoding;
/// broken and hostile files give an error or a repaired read, fast, never a crash.
@Suite struct CorpusTests {
    @Test(.enabled(if: Corpus.root != nil, "needs the corpus"))
    func wellFormedFilesReadAndMatchTheReference() throws {
        let files = Corpus.files(in: "wellformed")
        var errors: [String] = [], matched = 0, noReference = 0, mismatches: [String] = []
        for file in files {
            let name = Corpus.relativePath(file, in: "wellformed")
            let result: MIDIFileReadResult
            do { result = try MIDIFileReader.read(contentsOf: file.path) } catch {
                errors.append("\(error)")
                continue
            }
            let referenceURL = Corpus.root!.appendingPathComponent("reference/wellformed/\(name).json")
            guard FileManager.default.fileExists(atPath: referenceURL.path) else {
                noReference += 1
                continue
            }
            let reference = try ReferenceNotation.load(referenceURL)
            let ours = result.sequence.tracks.map { $0.events.map(ReferenceNotation.describe) }
            if reference.format == result.sequence.format, reference.tracks == ours,
               case .ticksPerQuarter(let ppqn) = result.sequence.division, Int(ppqn) == reference.division {
                matched += 1
            } else {
                mismatches.append("\(name): \(firstDifference(ours, reference.tracks))")
            }
        }
        print("corpus wellformed: \(files.count) files, \(files.count - errors.count) read without error, "
            + "\(matched) match the reference event for event, \(noReference) have no reference")
        #expect(errors.isEmpty, "\(errors)")
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(files.count == 114 && matched == 112)
    }

    @Test(.enabled(if: Corpus.root != nil, "needs the corpus"), arguments: ["malformed", "synthetic", "fuzz-crashes"])
    func brokenAndHostileFilesGiveAnErrorOrARepairedRead(folder: String) throws {
        let files = Corpus.files(in: folder)
        var errors = 0, repaired = 0, clean = 0, slow: [String] = []
        for file in files {
            let start = Date()
            do {
                let result = try MIDIFileReader.read(contentsOf: file.path)
                if result.warnings.isEmpty { clean += 1 } else { repaired += 1 }
            } catch {
                #expect(error.file == file.path)
                errors += 1
            }
            let seconds = Date().timeIntervalSince(start)
            if seconds >= 1 { slow.append("\(file.lastPathComponent): \(seconds) s") }
        }
        print("corpus \(folder): \(files.count) files: \(errors) errors, \(repaired) read with warnings, "
            + "\(clean) read clean, \(slow.count) over 1 s")
        #expect(slow.isEmpty, "\(slow)")
        #expect(errors + repaired > 0)
    }

    private func firstDifference(_ ours: [[[String]]], _ reference: [[[String]]]) -> String {
        guard ours.count == reference.count else { return "\(ours.count) tracks, reference \(reference.count)" }
        for (t, (a, b)) in zip(ours, reference).enumerated() where a != b {
            for (i, (x, y)) in zip(a, b).enumerated() where x != y { return "track \(t) event \(i): \(x) vs \(y)" }
            return "track \(t): \(a.count) events, reference \(b.count)"
        }
        return "format or division"
    }
}
