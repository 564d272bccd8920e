import Foundation
import MIDIFile

extension BatchRenderSettings {
    /// Whether an earlier run finished `input`, so a rerun skips it: its output is there, with
    /// `writesLabels` its labels, and with `stems` every stem the song has as `options` plays it,
    /// but for those the earlier manifest listed as silent (never written). Without a manifest, a
    /// stem with notes that was silent counts as missing, and the song is rendered again.
    func isFinished(_ input: BatchInput, options: (MusicSequence) throws -> RenderOptions) -> Bool {
        let output = outputPath(for: input)
        let files = FileManager.default
        guard files.fileExists(atPath: output), !writesLabels || files.fileExists(atPath: NoteLabels.path(besideOutput: output)) else {
            return false
        }
        guard let stems else { return true }
        guard let sequence = try? MIDIFileReader.read(contentsOf: input.path, mode: readMode).sequence,
              let songOptions = try? options(sequence),
              let parts = try? StemPlan.parts(of: sequence, options: songOptions) else { return false }
        let silent = earlierManifest?.silentStems(of: output) ?? []
        return StemPlan.stems(stems, parts: parts, sequence: sequence, options: songOptions)
            .filter { !silent.contains($0.name) }
            .allSatisfy { files.fileExists(atPath: StemFile.path(of: $0, besideMix: output, format: format)) }
    }
}
