import AudioFiles
import MIDIFile
import SeqplaySupport

/// How a batch run with a manifest ended (`BatchRenderer.run(manifest:problems:isInterrupted:observer:options:)`).
public enum BatchEnding: Sendable {
    /// Every input was done with: a result per input, in input order.
    case finished([BatchResult])
    /// `isInterrupted` turned true: the results of the inputs finished before it did.
    case interrupted([BatchResult])
    /// A manifest line could not be written (a full disk), which stopped the batch: why, and the results
    /// of the inputs finished before. Their outputs are kept.
    case manifestFailed(OutputFileError, [BatchResult])
}

extension BatchRenderer {
    /// Runs the batch as `seqplay render --output-dir --manifest` does. The inputs that could not be
    /// found or listed (`problems`) get their failed lines first, then each input its line as it is done
    /// with; `observer` sees every event after its line is written. The batch stops when a line cannot be
    /// written or when `isInterrupted` turns true; interrupted, the manifest gets back the earlier
    /// manifest's lines of the finished outputs the run did not reach, so a rerun still knows them.
    /// With `manifest` nil it is `run(isCancelled:observer:options:)` with `isInterrupted`.
    public func run(manifest: BatchManifest?, problems: [BatchInputDiscovery.Problem] = [],
                    isInterrupted: @escaping @Sendable () -> Bool,
                    observer: @escaping @Sendable (Event) -> Void = { _ in },
                    options: @escaping @Sendable (MusicSequence) throws -> RenderOptions) -> BatchEnding {
        for problem in problems {
            try? manifest?.append(BatchResult(input: BatchInput(path: problem.path, relativePath: problem.path), outputPath: "",
                                              status: .failed(problem.description)))
        }
        let results = run(
            isCancelled: { isInterrupted() || manifest?.failure != nil },
            observer: { event in
                if case .finished(let result) = event { try? manifest?.append(result) }  // a failure stops the batch (isCancelled)
                observer(event)
            },
            options: options)
        if let failure = manifest?.failure { return .manifestFailed(failure, results) }
        guard isInterrupted() else { return .finished(results) }
        try? manifest?.appendEarlierLines(of: inputs, without: results, settings: settings)
        return .interrupted(results)
    }
}
