import ArgumentParser
import Foundation
import Rendering

/// `--threads N`: how many cores render one song to a file.
struct ThreadsArgument: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Threads rendering one song to a file (default: every core seqplay may run on, for one file; with --output-dir the workers share them). With more than one, the groups render ahead of the mix, up to 64 MiB of audio. The song's channels are split into \(RenderOptions.fileChannelGroups) groups of about equal load, a synthesizer each, summed in a fixed order, so the output is the same whatever --threads and --jobs.",
        valueName: "n"))
    var threads: Int?

    func validate() throws {
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1 to 256 (got \(threads)).") }
    }

    /// `options` for rendering to a file on the threads asked for, or `defaultThreads`.
    func fileOptions(_ options: RenderOptions, defaultThreads: Int) -> RenderOptions {
        options.renderingToFile(threads: threads ?? defaultThreads)
    }
}
