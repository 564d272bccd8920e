import ArgumentParser
import BatchRendering
import Foundation

/// The flags of `seqplay render … --output-dir DIR`: many songs rendered at once.
struct BatchArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Render every MIDI file given or found under the directories given (recursively) into this directory, keeping their relative paths; a rerun skips finished outputs.", valueName: "dir"))
    var outputDir: String?

    @Option(help: ArgumentHelp("Songs rendered at once (default: the number of cores).", valueName: "count"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Render only slice I of N (1 ≤ I ≤ N) of the inputs, chosen by a hash of their relative paths, so N machines share a corpus with no coordinator.", valueName: "I/N"))
    var shard: String?

    @Flag(help: "Render outputs that exist already again (a rerun otherwise skips them).")
    var force = false

    /// Whether the batch mode is asked for.
    var isRequested: Bool { outputDir != nil }

    func validate() throws {
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be 1 to 1024.") }
        if let shard, BatchShard(parsing: shard) == nil {
            throw ValidationError("--shard needs I/N with 1 ≤ I ≤ N, e.g. --shard 2/8 (not '\(shard)').")
        }
        if !isRequested, jobs != nil || shard != nil || force {
            throw ValidationError("--jobs, --shard and --force go with --output-dir.")
        }
    }

    var parsedShard: BatchShard? { shard.flatMap(BatchShard.init(parsing:)) }
}
