import Atomics
import AudioFiles
import Sampler
import Foundation
import SeqplaySupport
import Synchronization
import MIDIFile
import SoundFontFile

/// Renders many MIDI files to audio files at once, as a dataset builder or an album export needs:
/// `settings.jobs` worker threads take the inputs largest file first (`renderingOrder`), each song
/// rendering through a new synthesizer that plays the batch's SoundFonts, loaded once for the whole
/// batch (`SharedSoundFonts`). Each output is written under a temporary name and renamed when
/// complete (on a finishing thread, while the worker renders its next song), so an output
/// that exists is finished: a rerun skips it (unless `overwritesFinishedOutputs`; with labels or stems,
/// only when they are all there too: `BatchRenderSettings.isFinished`), and a batch that was killed
/// resumes where it stopped. A file that cannot be rendered is reported and skipped.
///
/// ```swift
/// let inputs = BatchInputDiscovery.discover(["corpus/"]).inputs
/// let batch = try BatchRenderer(inputs: inputs, settings: BatchRenderSettings(outputDirectory: "out", soundFontPaths: [font]))
/// let results = batch.run { _ in RenderOptions() }
/// ```
///
/// Every output is byte-identical to a render of its song alone with the same options.
public final class BatchRenderer: Sendable {
    /// What a batch reports while it runs, from its worker threads.
    public enum Event: Sendable {
        /// A worker rendered `frames` more frames (of any song).
        case progress(frames: Int64)
        /// An input is done with.
        case finished(BatchResult)
    }

    public let inputs: [BatchInput]
    public let settings: BatchRenderSettings
    /// The fonts every song plays, loaded once.
    public let fonts: SharedSoundFonts

    /// Loads the fonts of `settings`; throws when one cannot be loaded.
    public init(inputs: [BatchInput], settings: BatchRenderSettings) throws(SoundFontError) {
        self.inputs = inputs
        self.settings = settings
        fonts = try SharedSoundFonts(paths: settings.soundFontPaths)
    }

    /// Renders every input, `options` giving each song's render options (the same flags may need the
    /// song, e.g. a loop to its end). Returns a result per input, in input order, once every worker
    /// has stopped. When `isCancelled` turns true, workers abandon their current outputs (leaving
    /// no file) and take no more inputs; inputs never started have no result. `observer` is called
    /// from the worker threads (progress) and their finishing threads (`.finished`, one at a time
    /// per worker).
    public func run(isCancelled: @escaping @Sendable () -> Bool = { false },
                    observer: @escaping @Sendable (Event) -> Void = { _ in },
                    options: @escaping @Sendable (MusicSequence) throws -> RenderOptions) -> [BatchResult] {
        let next = ManagedAtomic(0)
        let order = Self.renderingOrder(of: inputs) { [settings] input in
            !settings.overwritesFinishedOutputs && FileManager.default.fileExists(atPath: settings.outputPath(for: input))
        }
        let results = ResultTable(count: inputs.count)
        let workers = (0..<max(1, min(settings.jobs, inputs.count))).map { _ in ServiceThread() }
        for worker in workers {
            worker.start(name: "seqplay batch", stackSize: 4 << 20) { [self] in
                let worker = BatchWorker(settings: settings, fonts: fonts, isCancelled: isCancelled, observer: observer, options: options)
                // Each output is completed (closed, synced, renamed) on this queue while the worker
                // renders the next song; at most one waits, so the worker never runs ahead of the disk.
                let finishing = DispatchQueue(label: "seqplay.batch.finishing")
                let oneWaiting = DispatchSemaphore(value: 1)
                while !isCancelled() {
                    let position = next.loadThenWrappingIncrement(ordering: .relaxed)
                    guard position < order.count else { break }
                    let index = order[position]
                    guard let pending = worker.render(inputs[index]) else { break }
                    oneWaiting.wait()
                    finishing.async {
                        let result = pending.complete()
                        results.set(index, result)
                        observer(.finished(result))
                        oneWaiting.signal()
                    }
                }
                finishing.sync {}
            }
        }
        workers.forEach { $0.join() }
        return results.all
    }

    /// What `run` would do with each input, rendering and writing nothing (`--dry-run`): its output,
    /// and whether an earlier run finished it (`BatchRenderSettings.isFinished`: skipped).
    public func plan(options: (MusicSequence) throws -> RenderOptions) -> [PlannedOutput] {
        inputs.map { input in
            PlannedOutput(input: input, outputPath: settings.outputPath(for: input),
                          isFinished: !settings.overwritesFinishedOutputs && settings.isFinished(input, options: options))
        }
    }

    /// The order workers take `inputs` in (indices): those `isLikelyFinished` first (a rerun skips
    /// them at once, so their manifest lines come first and a rerun killed while rendering keeps
    /// them), then the largest file first, equal sizes in input order.
    /// Workers take the next input as they finish one, so the batch ends when its last song does:
    /// started last, a long song would leave the other workers idle while it renders alone. File
    /// size stands for rendering time (it counts the events; a `stat` per input, nothing read).
    static func renderingOrder(of inputs: [BatchInput], isLikelyFinished: (BatchInput) -> Bool = { _ in false }) -> [Int] {
        let sizes = inputs.map(\.fileSize)
        let finished = inputs.map(isLikelyFinished)
        return inputs.indices.sorted {
            if finished[$0] != finished[$1] { return finished[$0] }
            return sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1
        }
    }
}

/// An input of a batch as `BatchRenderer.plan` sees it before rendering.
public struct PlannedOutput: Sendable {
    public var input: BatchInput
    /// Where its output goes.
    public var outputPath: String
    /// An earlier run finished it: a run skips it (unless `overwritesFinishedOutputs`).
    public var isFinished: Bool
}

/// Results stored by index from several threads.
private final class ResultTable: Sendable {
    private let results: Mutex<[BatchResult?]>

    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }

    func set(_ index: Int, _ result: BatchResult) {
        results.withLock { $0[index] = result }
    }

    var all: [BatchResult] { results.withLock { table in table.compactMap { $0 } } }
}
