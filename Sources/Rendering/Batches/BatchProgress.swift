import Foundation

/// The one progress line of a batch on standard error: files done of all, failures, speed as a
/// multiple of real time (all workers together) and the time left (from the input bytes done, as the
/// workers take the largest files first). Drawn only on a terminal, at most ten times a second;
/// messages printed meanwhile (through `note`) clear the line first, among them what went wrong with a song (its
/// failure, a gain lowered so it does not clip, clipping). Safe from any thread. Hand `record` to
/// `BatchRenderer.run`'s observer; `finish()` ends the line, `summary` is the batch's last line.
public final class BatchProgress: @unchecked Sendable {
    private let total: Int
    private let isEnabled: Bool
    private let lock = NSLock()
    private let started = Date()
    private var lastDrawn = Date.distantPast
    private var done = 0
    /// Bytes of the inputs to render (skipped ones leave the count) and of those done.
    private var totalBytes: Int64
    private var bytesDone: Int64 = 0
    private var failed = 0
    private var audioSeconds = 0.0
    private var isLineDrawn = false

    private let sampleRate: Double
    private let printNote: @Sendable (String) -> Void

    /// The progress of rendering `inputs` at `sampleRate`; `note` prints a message line (on standard
    /// error); drawn when `isEnabled` (standard error is a terminal).
    public init(inputs: [BatchInput], sampleRate: Int, isEnabled: Bool = isatty(STDERR_FILENO) != 0,
                note: @escaping @Sendable (String) -> Void) {
        printNote = note
        total = inputs.count
        totalBytes = isEnabled ? inputs.reduce(0) { $0 + max(1, $1.fileSize) } : 0
        self.sampleRate = Double(sampleRate)
        self.isEnabled = isEnabled
    }

    /// Counts `event` and redraws the line (at most ten times a second).
    public func record(_ event: BatchRenderer.Event) {
        lock.withLock {
            switch event {
            case .progress(let frames): audioSeconds += Double(frames) / sampleRate
            case .finished(let result):
                done += 1
                if isEnabled {
                    let bytes = max(1, result.input.fileSize)
                    if case .skipped = result.status { totalBytes -= bytes } else { bytesDone += bytes }
                }
                if result.hasFailed { failed += 1 }
            }
            draw(force: false)
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
        lock.withLock {
            clear()
            printNote(message)
            draw(force: true)
        }
    }

    /// Draws the line a last time and ends it.
    public func finish() {
        lock.withLock {
            draw(force: true)
            if isLineDrawn { FileHandle.standardError.write(Data("\n".utf8)) }
            isLineDrawn = false
        }
    }

    private func clear() {
        guard isLineDrawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        isLineDrawn = false
    }

    private func draw(force: Bool) {
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
        isLineDrawn = true
    }

    private static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
