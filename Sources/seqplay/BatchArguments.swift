import ArgumentParser
import Rendering
import Foundation

/// The flags of `seqplay render … --output-dir DIR`: many songs rendered at once.
struct BatchArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Render every MIDI file given or found under the directories given (recursively) into this directory, keeping their relative paths; a rerun skips finished outputs.", valueName: "dir"))
    var outputDir: String?

    @Option(help: ArgumentHelp("Songs rendered at once (default: the cores seqplay may run on, as taskset or a cpuset leaves them).", valueName: "count"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Render only slice I of N (1 ≤ I ≤ N) of the inputs, chosen by a hash of their relative paths, so N machines share a corpus with no coordinator.", valueName: "I/N"))
    var shard: String?

    @Flag(help: "Render outputs that exist already again (a rerun otherwise skips them).")
    var force = false

    @Option(help: ArgumentHelp("Write one JSON object per input to this file: paths, status (rendered, skipped, failed + reason), duration, sample rate, frames, peak, loudness (LUFS), SoundFonts, and each channel's instrument.", valueName: "file.jsonl"))
    var manifest: String?

    @Flag(help: "Also write beside each output the notes as they sound (NAME.labels.csv: onset/offset in seconds and samples, pitch, velocity, channel, program, stem).")
    var labels = false

    @Option(help: ArgumentHelp("Also write stems beside each mix: one file per MIDI channel (NAME.ch01.wav…), per track (NAME.track2.wav…) or per General MIDI instrument (NAME.program033.wav…, drums apart); silent ones are not written. They sum to the mix (reverb and chorus included; an --fx chain applies to each).", valueName: "channel|track|program"))
    var stems: StemMode?

    @Flag(help: "Bring each file to a loudness (EBU R128, default -23 LUFS; see --lufs) with one gain, its stems with the same; an integer output's gain is lowered so it never clips.")
    var normalize = false

    @Option(parsing: .unconditional, help: ArgumentHelp("The loudness --normalize aims at (implies it), -70 to 0.", valueName: "LUFS"))
    var lufs: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Bring each file's sample peak to this level instead (-60 to 0).", valueName: "dBFS"))
    var peak: Double?

    /// The normalization asked for.
    var normalization: Normalization? {
        if let peak { return .peak(dBFS: peak) }
        if normalize || lufs != nil { return .loudness(lufs: lufs ?? -23) }
        return nil
    }

    /// Whether the batch mode is asked for.
    var isRequested: Bool { outputDir != nil }

    func validate() throws {
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be 1 to 1024.") }
        if let shard, BatchShard(parsing: shard) == nil {
            throw ValidationError("--shard needs I/N with 1 ≤ I ≤ N, e.g. --shard 2/8 (not '\(shard)').")
        }
        if let lufs, !(-70...0).contains(lufs) { throw ValidationError("--lufs must be -70 to 0.") }
        if let peak, !(-60...0).contains(peak) { throw ValidationError("--peak must be -60 to 0 dBFS.") }
        if peak != nil, normalize || lufs != nil { throw ValidationError("--peak and --normalize/--lufs are two targets: choose one.") }
        if !isRequested, normalization != nil {
            throw ValidationError("--normalize, --lufs and --peak go with --output-dir (render one song with --output-dir too).")
        }
        if !isRequested, jobs != nil || shard != nil || force || manifest != nil || labels || stems != nil {
            throw ValidationError("--jobs, --shard, --force, --manifest, --labels and --stems go with --output-dir.")
        }
    }

    var parsedShard: BatchShard? { shard.flatMap(BatchShard.init(parsing:)) }
}

extension StemMode: ExpressibleByArgument {}
