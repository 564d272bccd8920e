import AudioFiles
import Foundation
import MIDIFile
import SeqplaySupport
import Synchronization

/// The manifest of a batch (`--manifest FILE.jsonl`): one JSON object per input, written as each
/// input is done with, so a killed batch leaves the lines of what it finished. Safe from any thread.
///
/// Keys: `input`, `output`, `status` (`rendered`, `skipped`, `failed`), `reason` (failed), and for
/// an output that exists: `sample_rate`, `frames`, `duration_seconds`; for one rendered now also
/// `peak`, `peak_dbfs`, `clipped`, `loudness_lufs` (null when silent), `soundfonts`, `repairs`,
/// `gain_db` and `gain_limited` (normalized: lowered to keep an integer output from clipping),
/// `labels` (the labels file, with --labels), `parts`: per channel that sounded, `channel` (1-16),
/// `program`, `instrument` (its General MIDI name), `drums`, `notes`; and `stems` (with --stems):
/// `name`, `file` (null when silent and not written), `silent`, `channels`, `track` or `program`
/// and `instrument`, `drums`. An output skipped as finished keeps what the earlier manifest at the
/// same path said of it (`EarlierManifest`: every key but `status`, when the file still has the
/// frames and sample rate it said).
///
/// The file is an `AppendingOutputFile`: a device or FIFO is written through; a file is replaced
/// by an empty one at once (atomically, keeping its permissions; a symbolic link's target) and each
/// line is appended whole or not at all. After a line fails (a full disk) nothing more is written,
/// so the manifest holds whole lines of what was finished, in order.
public final class BatchManifest: Sendable {
    public let path: String
    /// The file, and why a line could not be written once one could not: lines are appended under the mutex.
    private let writing: Mutex<(file: AppendingOutputFile, failure: OutputFileError?)>
    private let soundFontPaths: [String]
    private let labels: Bool
    private let earlier: EarlierManifest

    /// Creates (or empties) the manifest at `path`, which may not be any of `inputs` (the batch's
    /// songs) or the fonts. What it held is `settings.earlierManifest`, or else read first.
    public init(path: String, settings: BatchRenderSettings, protecting inputs: [String] = []) throws(OutputFileError) {
        earlier = settings.earlierManifest ?? EarlierManifest(path: path)
        writing = Mutex((try AppendingOutputFile(path: path, protecting: inputs + settings.soundFontPaths), nil))
        self.path = path
        soundFontPaths = settings.soundFontPaths
        labels = settings.writesLabels
    }

    /// Why a line could not be written, once one could not; nothing is written after it.
    public var failure: OutputFileError? { writing.withLock { $0.failure } }

    /// Writes `result`'s line; throws (then and for every later line) when the manifest cannot be written.
    public func append(_ result: BatchResult) throws(OutputFileError) {
        try append(line: Self.line(for: result, soundFontPaths: soundFontPaths, labels: labels, earlier: earlier))
    }

    /// Writes, as skipped, the lines the earlier manifest had of finished outputs of `inputs` this
    /// run has no result for (`results`): a batch interrupted in a rerun keeps what it knew of the
    /// outputs it did not reach.
    public func appendEarlierLines(of inputs: [BatchInput], without results: [BatchResult], settings: BatchRenderSettings) throws(OutputFileError) {
        let done = Set(results.map(\.input.path))
        for input in inputs where !done.contains(input.path) {
            let output = settings.outputPath(for: input)
            guard let reader = try? AudioFileReader(path: output),
                  earlier.entry(for: output, frames: reader.frameCount, sampleRate: reader.sampleRate) != nil else { continue }
            try append(BatchResult(input: input, outputPath: output, status: .skipped))
        }
    }

    private func append(line: String) throws(OutputFileError) {
        try writing.withLock { (writing) throws(OutputFileError) in
            if let failure = writing.failure { throw failure }
            do throws(OutputFileError) {
                try writing.file.append(Data((line + "\n").utf8))
            } catch {
                writing.failure = error
                throw error
            }
        }
    }

    static func line(for result: BatchResult, soundFontPaths: [String], labels: Bool, earlier: EarlierManifest) -> String {
        var entry: [String: Any] = ["input": result.input.path, "output": result.outputPath]
        switch result.status {
        case .rendered(let audio):
            entry["status"] = "rendered"
            entry["sample_rate"] = audio.sampleRate
            entry["frames"] = audio.frames
            entry["duration_seconds"] = audio.durationSeconds
            entry["peak"] = Double(audio.peak)
            entry["peak_dbfs"] = audio.peak > 0 ? 20 * log10(Double(audio.peak)) : nil as Double?
            entry["clipped"] = audio.clips
            entry["loudness_lufs"] = audio.loudness ?? NSNull()
            entry["soundfonts"] = soundFontPaths
            entry["repairs"] = result.repairs
            entry["render_seconds"] = audio.renderSeconds
            if audio.gain != .none {
                entry["gain_db"] = audio.gain.decibels
                entry["gain_limited"] = audio.gain.isLimited
            }
            if labels { entry["labels"] = NoteLabels.path(besideOutput: result.outputPath) }
            entry["parts"] = audio.parts.map { part -> [String: Any] in
                ["channel": Int(part.channel) + 1, "program": Int(part.program), "instrument": part.instrumentName,
                 "drums": part.isDrums, "notes": part.noteCount]
            }
            entry["stems"] = audio.stems.map { stem -> [String: Any] in
                var item: [String: Any] = ["name": stem.name, "file": stem.path ?? NSNull(), "silent": stem.path == nil,
                                           "drums": stem.isDrums, "channels": stem.channels.map { Int($0) + 1 }]
                if let track = stem.track { item["track"] = track }
                if let program = stem.program {
                    item["program"] = Int(program)
                    item["instrument"] = GeneralMIDI.instrumentName(program: program, channel: stem.isDrums ? 9 : 0)
                }
                return item
            }
        case .skipped:
            if let reader = try? AudioFileReader(path: result.outputPath) {
                if let known = earlier.entry(for: result.outputPath, frames: reader.frameCount, sampleRate: reader.sampleRate) {
                    entry.merge(known) { current, _ in current }
                }
                entry["sample_rate"] = reader.sampleRate
                entry["frames"] = reader.frameCount
                entry["duration_seconds"] = Double(reader.frameCount) / Double(reader.sampleRate)
            }
            entry["status"] = "skipped"
        case .failed(let reason):
            entry["status"] = "failed"
            entry["reason"] = reason
        }
        let data = (try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
