import SeqplaySupport
import Foundation

extension BatchRenderSettings {
    /// The lines of a batch's dry run (`seqplay render --output-dir … --dry-run`): a line per input
    /// of `plan` (rendered, with its labels and stems, or skipped as finished), the `manifest` if one
    /// is asked for, and a summary counting `problems` (inputs that cannot be used) as failed.
    public func dryRunReport(_ plan: [PlannedOutput], manifest: String?, problems: Int) -> String {
        let extras = (writesLabels ? ["labels"] : []) + (stems.map { ["\($0.rawValue) stems"] } ?? [])
        let besides = extras.isEmpty ? "" : " (with its " + extras.joined(separator: " and ") + ")"
        var lines = plan.map { planned in
            planned.isFinished ? "skip    \(planned.input.path) -> \(planned.outputPath) (finished)"
                : "render  \(planned.input.path) -> \(planned.outputPath)\(besides)"
        }
        if let manifest { lines.append("manifest \(manifest)") }
        let finished = plan.filter(\.isFinished).count
        lines.append("dry run, nothing written: \(plan.count - finished) to render, \(finished) finished, \(problems) failed")
        return lines.joined(separator: "\n")
    }

    /// "a/x/song.mid and a/y/song.mid would both be out/song.wav: written as out/x/song.wav and out/y/song.wav"
    public func describe(_ collision: NameCollision) -> String {
        let shared = (outputDirectory as NSString).appendingPathComponent(collision.sharedName + "." + format.rawValue)
        return collision.inputs.map(\.path).joined(separator: " and ") + (collision.inputs.count == 2 ? " would both be " : " would all be ")
            + shared + ": written as " + collision.inputs.map(outputPath(for:)).joined(separator: " and ")
    }
}

extension BatchManifest {
    /// Opens (empties) the manifest at `path` as `init(path:settings:protecting:)` does, except that a
    /// manifest inside the settings' output directory gets that directory made first when it is missing.
    public static func opening(path: String, settings: BatchRenderSettings, protecting inputs: [String] = []) throws(OutputFileError) -> BatchManifest {
        do {
            return try BatchManifest(path: path, settings: settings, protecting: inputs)
        } catch {
            let outputDirectory = (settings.outputDirectory as NSString).standardizingPath
            if case .noDirectory(let missing) = error.problem,
               ((missing as NSString).standardizingPath + "/").hasPrefix(outputDirectory + "/"),
               (try? FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)) != nil,
               let manifest = try? BatchManifest(path: path, settings: settings, protecting: inputs) {
                return manifest
            }
            throw error
        }
    }
}
