import Rendering
import Foundation

/// What `seqplay render --output-dir` says besides its progress: the plan of a dry run, the
/// inputs whose output names collided.
extension BatchRender {
    /// `--dry-run`: a line per input (rendered or skipped as finished, and where to), the manifest,
    /// and a summary; nothing is written. Exits 2 when some inputs cannot be used (`problems`).
    func printPlan(_ plan: [PlannedOutput], settings: BatchRenderSettings, problems: Int) throws {
        let extras = (settings.writesLabels ? ["labels"] : []) + (settings.stems.map { ["\($0.rawValue) stems"] } ?? [])
        let besides = extras.isEmpty ? "" : " (with its " + extras.joined(separator: " and ") + ")"
        var lines = plan.map { planned in
            planned.isFinished ? "skip    \(planned.input.path) -> \(planned.outputPath) (finished)"
                : "render  \(planned.input.path) -> \(planned.outputPath)\(besides)"
        }
        if let manifest = batch.manifest { lines.append("manifest \(manifest)") }
        let finished = plan.filter(\.isFinished).count
        lines.append("dry run, nothing written: \(plan.count - finished) to render, \(finished) finished, \(problems) failed")
        print(lines.joined(separator: "\n"))
        if problems > 0 { throw CommandFailure(nil, .someInputsFailed) }
    }

    /// "a/x/song.mid and a/y/song.mid would both be out/song.wav: written as out/x/song.wav and out/y/song.wav"
    static func describe(_ collision: NameCollision, settings: BatchRenderSettings) -> String {
        let shared = (settings.outputDirectory as NSString).appendingPathComponent(collision.sharedName + "." + settings.format.rawValue)
        return collision.inputs.map(\.path).joined(separator: " and ") + (collision.inputs.count == 2 ? " would both be " : " would all be ")
            + shared + ": written as " + collision.inputs.map(settings.outputPath(for:)).joined(separator: " and ")
    }
}
