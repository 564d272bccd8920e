import AudioFiles
import Foundation
import Rendering
import Synchronization
import XCTest

/// `BatchRenderer.run(manifest:problems:isInterrupted:observer:options:)`, the batch as `render --output-dir
/// --manifest` runs it, driven from the library.
final class BatchManifestRunTests: BatchTestCase {
    private func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A first run writes the problems' lines first, then a line per song; a rerun interrupted before it
    /// takes any song ends `.interrupted` and still has the first run's lines of the finished outputs.
    func testProblemsAndResultsGetLinesAndAnInterruptedRerunKeepsWhatTheManifestKnew() throws {
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        _ = try writeCorpus(in: root, count: 2, seconds: 1)
        let found = BatchInputDiscovery.find([root, root + "/missing.mid"])
        XCTAssertEqual(found.problems.count, 1)
        var settings = BatchRenderSettings(outputDirectory: out + "/audio", soundFontPaths: [Self.generalMIDIFont])
        settings.measuresLoudness = true
        let path = out + "/manifest.jsonl"
        let renderer = try BatchRenderer(inputs: found.inputs, settings: settings)
        let finishedEvents = SentEvents()
        let first = renderer.run(manifest: try BatchManifest(path: path, settings: settings), problems: found.problems,
                                 isInterrupted: { false }, observer: { if case .finished = $0 { finishedEvents.count() } },
                                 options: { _ in RenderOptions() })
        guard case .finished(let results) = first else { return XCTFail("first run: \(first)") }
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(finishedEvents.total, 2)
        let written = try lines(path)
        XCTAssertEqual(written.map { $0["status"] as? String }, ["failed", "rendered", "rendered"])
        XCTAssertEqual(written[0]["reason"] as? String, "\(root)/missing.mid: no such file or directory")
        let firstFrames = Set(written.dropFirst().compactMap { $0["frames"] as? Int })
        XCTAssertEqual(firstFrames.count, 2)

        let rerun = renderer.run(manifest: try BatchManifest(path: path, settings: settings), isInterrupted: { true },
                                 options: { _ in RenderOptions() })
        guard case .interrupted(let none) = rerun else { return XCTFail("rerun: \(rerun)") }
        XCTAssertTrue(none.isEmpty)
        let kept = try lines(path)
        XCTAssertEqual(kept.map { $0["status"] as? String }, ["skipped", "skipped"])
        XCTAssertEqual(Set(kept.compactMap { $0["frames"] as? Int }), firstFrames)
        XCTAssertTrue(kept.allSatisfy { $0["loudness_lufs"] != nil }, "the rendered lines' loudness kept: \(kept)")
    }
}

/// Counts events from the batch's threads.
private final class SentEvents: Sendable {
    private let counter = Mutex(0)
    func count() { counter.withLock { $0 += 1 } }
    var total: Int { counter.withLock { $0 } }
}
