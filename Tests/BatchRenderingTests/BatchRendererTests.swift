import AudioFiles
@testable import Rendering
import Foundation
import MIDIFile
import XCTest

final class BatchRendererTests: BatchTestCase {
    private func options(_ sequence: MusicSequence) -> RenderOptions { RenderOptions() }

    private func batch(_ root: String, output: String, jobs: Int, overwrite: Bool = false,
                       sampleFormat: AudioSampleFormat? = nil) throws -> [BatchResult] {
        var settings = BatchRenderSettings(outputDirectory: output, soundFontPaths: [Self.generalMIDIFont])
        settings.jobs = jobs
        settings.overwritesFinishedOutputs = overwrite
        settings.sampleFormat = sampleFormat
        let inputs = BatchInputDiscovery.discover([root]).inputs
        return try BatchRenderer(inputs: inputs, settings: settings).run { _ in RenderOptions() }
    }

    /// Reverb and chorus on (FluidSynth's defaults): every output equals the song rendered alone, byte
    /// for byte (float: sample for sample, see `sameAudio`), whichever worker rendered it after whichever songs.
    func testOutputsAreByteIdenticalWhateverJobsAndToASongRenderedAlone() throws {
        let root = try temporaryDirectory()
        let songs = try writeCorpus(in: root, count: 7)
        for format in [AudioSampleFormat.int16, .float32] {
            var outputs: [Int: [String: Data]] = [:]
            for jobs in [1, 3] {
                let out = try temporaryDirectory()
                let results = try batch(root, output: out, jobs: jobs, sampleFormat: format)
                XCTAssertEqual(results.count, songs.count)
                XCTAssertFalse(results.contains(where: \.hasFailed))
                outputs[jobs] = Dictionary(uniqueKeysWithValues: try files(under: out).map {
                    ($0, try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0)))
                })
            }
            XCTAssertEqual(outputs[1]?.keys.sorted(), songs.map { ($0 as NSString).deletingPathExtension + ".wav" }.sorted())
            for song in songs {
                let name = (song as NSString).deletingPathExtension + ".wav"
                let alone = try renderAlone(root + "/" + song, options: RenderOptions(), sampleFormat: format)
                XCTAssertTrue(try sameAudio(try XCTUnwrap(outputs[1]?[name]), alone, float: format == .float32), "\(song) (\(format)), --jobs 1")
                XCTAssertTrue(try sameAudio(try XCTUnwrap(outputs[3]?[name]), alone, float: format == .float32), "\(song) (\(format)), --jobs 3")
            }
        }
    }

    /// Workers take the largest files first (a long song started last would leave the other workers
    /// idle), equal sizes and unreadable paths in input order; results still come back in input order.
    func testWorkersTakeTheLargestFilesFirstAndResultsKeepInputOrder() throws {
        let root = try temporaryDirectory()
        for (index, seconds) in [1, 3, 2, 3].enumerated() {
            try MIDIFileWriter.write(Self.song(seed: 0, seconds: seconds), to: root + "/song\(index).mid")
        }
        var inputs = BatchInputDiscovery.discover([root]).inputs
        inputs.append(BatchInput(path: root + "/missing.mid", relativePath: "missing"))
        XCTAssertEqual(BatchRenderer.renderingOrder(of: inputs), [1, 3, 2, 0, 4])
        // Outputs likely finished (a rerun skips them at once, their manifest lines first) before any other.
        XCTAssertEqual(BatchRenderer.renderingOrder(of: inputs) { ["song0.mid", "song2.mid"].contains($0.relativePath) }, [2, 0, 1, 3, 4])
        let results = try batch(root, output: try temporaryDirectory(), jobs: 2)
        XCTAssertEqual(results.map(\.input.relativePath), ["song0.mid", "song1.mid", "song2.mid", "song3.mid"])
    }

    func testABadFileIsReportedAndTheBatchGoesOn() throws {
        let root = try temporaryDirectory()
        try writeCorpus(in: root, count: 3, seconds: 1)
        _ = FileManager.default.createFile(atPath: root + "/broken.mid", contents: Data("MThd\u{0}\u{0}".utf8))
        let results = try batch(root, output: try temporaryDirectory(), jobs: 2)
        XCTAssertEqual(results.count, 4)
        let failed = try XCTUnwrap(results.first(where: \.hasFailed))
        XCTAssertEqual(failed.input.relativePath, "broken.mid")
        guard case .failed(let reason) = failed.status else { return XCTFail() }
        XCTAssertTrue(reason.contains("broken.mid"), reason)
        XCTAssertFalse(FileManager.default.fileExists(atPath: failed.outputPath))
        XCTAssertEqual(results.filter { if case .rendered = $0.status { return true } else { return false } }.count, 3)
    }

    func testARerunSkipsFinishedOutputsAndForceRendersThemAgain() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 4, seconds: 1)
        _ = try batch(root, output: out, jobs: 2)
        let first = try files(under: out).map { try modificationDate(out + "/" + $0) }
        // One output removed: the rerun renders it alone and leaves the others untouched.
        try FileManager.default.removeItem(atPath: out + "/song0.wav")
        Thread.sleep(forTimeInterval: 0.05)
        let rerun = try batch(root, output: out, jobs: 2)
        XCTAssertEqual(rerun.filter { if case .skipped = $0.status { return true } else { return false } }.count, 3)
        let second = try files(under: out).map { try modificationDate(out + "/" + $0) }
        for (index, name) in files(under: out).enumerated() where name != "song0.wav" {
            XCTAssertEqual(first[index], second[index], name)
        }
        let forced = try batch(root, output: out, jobs: 2, overwrite: true)
        XCTAssertTrue(forced.allSatisfy { if case .rendered = $0.status { return true } else { return false } })
    }

    private func modificationDate(_ path: String) throws -> Date {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }
}
