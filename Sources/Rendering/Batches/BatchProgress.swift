import Foundation
import Synchronization

/// The one progress line of a batch on standard error: files done of all, failures, speed as a
/// multiple of real time (all workers together) and the time left (from the input bytes done, as the
/// workers take the largest files first). Drawn only on a terminal, at most ten times a second;
/// messages printed meanwhile (through `note`) clear the line first, among them what went wrong with a song (its
/// failure, a gain lowered so it does not clip, clipping). Safe from any thread. Hand `record` to
/// `BatchRenderer.run`'s observer; `finish()` ends the line, `summary` is the batch's last line.
public final class BatchProgress: Sendable {
    /// What the line shows, and whether it is on the screen; changed under the mutex, from any thread.
    private struct Line {
        let total: Int
        let isEnabled: Bool
        let sampleRate: Double
        let started = Date()
        var lastDrawn = Date.distantPast
        var done = 0
        /// Bytes of the inputs to render (skipped ones leave the count) and of those done.
        var totalBytes: Int64
        var bytesDone: Int64 = 0
        var failed = 0
        var audioSeconds = 0.0
        var isDrawn = false

        mutating func clear() {
            guard isDrawn else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            isDrawn = false
        }

        mutating func draw(force: Bool) {
            guard isEnabled else { return }
            let now = Date()
            guard force || now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
            lastDrawn = now
            let elapsed = now.timeIntervalSince(started)
            let speed = elapsed > 0 ? audioSeconds / elapsed : 0
            let eta = bytesDone > 0 ? elapsed / Double(bytesDone) * Double(max(0, totalBytes - bytesDone)) : nil
            let failures = failed > 0 ? ", \(failed) failed" : ""
            let line = "\r\u{1B}[K\(done)/\(total) files\(failures)  \(String(format: "%.1f", speed))× real time  "
                + "ETA \(eta.map(Self.clock) ?? "--:--")"
            FileHandle.standardError.write(Data(line.utf8))
            isDrawn = true
        }

        private static func clock(_ seconds: Double) -> String {
            let whole = Int(seconds.rounded())
            return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
                : String(format: "%d:%02d", whole / 60, whole % 60)
        }
    }

    private let line: Mutex<Line>
    private let printNote: @Sendable (String) -> Void

    /// The progress of rendering `inputs` at `sampleRate`; `note` prints a message line (on standard
    /// error); drawn when `isEnabled` (standard error is a terminal).
    public init(inputs: [BatchInput], sampleRate: Int, isEnabled: Bool = isatty(STDERR_FILENO) != 0,
                note: @escaping @Sendable (String) -> Void) {
        printNote = note
        line = Mutex(Line(total: inputs.count, isEnabled: isEnabled, sampleRate: Double(sampleRate),
                          totalBytes: isEnabled ? inputs.reduce(0) { $0 + max(1, $1.fileSize) } : 0))
    }

    /// Counts `event` and redraws the line (at most ten times a second).
    public func record(_ event: BatchRenderer.Event) {
        line.withLock { line in
            switch event {
            case .progress(let frames): line.audioSeconds += Double(frames) / line.sampleRate
            case .finished(let result):
                line.done += 1
                if line.isEnabled {
                    let bytes = max(1, result.input.fileSize)
                    if case .skipped = result.status { line.totalBytes -= bytes } else { line.bytesDone += bytes }
                }
                if result.hasFailed { line.failed += 1 }
            }
            line.draw(force: false)
        }
        guard case .finished(let result) = event else { return }
        switch result.status {
        case .failed(let reason): note(reason)
        case .rendered(let audio) where audio.gain.isLimited:
            note("\(result.outputPath): gain lowered to \(String(format: "%+.1f", audio.gain.decibels)) dB so it does not clip")
        case .rendered(let audio) where audio.clips: note(RenderedAudio.clippingNote(result.outputPath, peak: audio.peak))
        default: break
        }
    }

    /// The batch's last line: how many songs were rendered, already there and failed (`problems` more inputs
    /// failed before rendering), with the shard `shard` of `inputCount` inputs when one was asked for.
    public static func summary(_ results: [BatchResult], problems: Int, shard: (description: String, inputCount: Int)? = nil) -> String {
        let failed = results.filter(\.hasFailed).count
        let skipped = results.filter { if case .skipped = $0.status { return true } else { return false } }.count
        return "\(results.count - skipped - failed) rendered, \(skipped) already there, \(failed + problems) failed"
            + (shard.map { " (shard \($0.description) of \($0.inputCount) inputs)" } ?? "")
    }

    /// Prints `message` on its own line (the progress line redrawn after it).
    public func note(_ message: String) {
        line.withLock { line in
            line.clear()
            printNote(message)
            line.draw(force: true)
        }
    }

    /// Draws the line a last time and ends it.
    public func finish() {
        line.withLock { line in
            line.draw(force: true)
            if line.isDrawn { FileHandle.standardError.write(Data("\n".utf8)) }
            line.isDrawn = false
        }
    }
}
