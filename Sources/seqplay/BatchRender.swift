import ArgumentParser
import Rendering
import Foundation
import MIDIFile
import SeqplaySupport

/// `seqplay render A.mid DIR… --output-dir OUT` (`PlaybackMode.batch`): renders every song with the
/// same flags, reports the files that failed, and exits 2 if any did (130 when interrupted).
struct BatchRender: Sendable {
    let sound: SongSound
    let batch: BatchArguments
    let encoding: EncodingArguments
    let file: FileArguments
    let threading: ThreadsArgument

    /// Any number of paths, none of the one-song outputs (-o, real-time destinations).
    static func validate(song: SongArguments, file: FileArguments, destinations: DestinationArguments) throws {
        if song.songs.isEmpty { throw ValidationError("--output-dir needs MIDI files or directories to render ('-' reads a list).") }
        if file.output != nil { throw ValidationError("-o names one output; with --output-dir the outputs are named after the inputs.") }
        if destinations.networkConnect != nil || destinations.hasPorts || destinations.route == .alsa {
            throw ValidationError("--output-dir renders to files; --network-connect, --port, --port-for-track and --route alsa play in real time.")
        }
    }

    func run() throws {
        let found = BatchInputDiscovery.find(batchPaths())
        let named = BatchInputDiscovery.separatingStemNames(found.inputs, stems: batch.stems)
        let (inputs, problems) = (named.inputs, found.problems + named.problems)
        for problem in problems { CommandLineOutput.note("\(problem)") }
        let selected = batch.parsedShard.map { shard in inputs.filter(shard.contains) } ?? inputs
        // The --font-for fonts load first, as a single render loads them (SamplerSettings.fontLoadOrder).
        let fontPaths = try CommandFailure.mapping { try sound.sampler.settings().fontLoadOrder(sound.fontPaths()) }
        var settings = BatchRenderSettings(outputDirectory: batch.outputDir!, soundFontPaths: fontPaths)
        settings.format = file.format ?? .wav
        settings.sampleFormat = file.bitDepth?.sampleFormat
        settings.jobs = batch.jobs ?? AvailableCores.count
        settings.overwritesFinishedOutputs = batch.force
        settings.readMode = sound.song.strict ? .strict : .lenient
        settings.writesLabels = batch.labels
        settings.stems = batch.stems
        settings.normalization = batch.normalization
        settings.measuresLoudness = batch.manifest != nil
        settings.earlierManifest = batch.manifest.map(EarlierManifest.init(path:))
        let encoding = self.encoding
        settings.encoding = { encoding.encoding(for: $0) }
        for collision in found.collisions { CommandLineOutput.note(settings.describe(collision)) }
        let sampleRate = encoding.sampleRate(sound.sampleRate, for: settings.format)
        let threadsPerJob = max(1, AvailableCores.count / settings.jobs)
        let options: @Sendable (MusicSequence) throws -> RenderOptions = { [self] sequence in
            var options = threading.fileOptions(try sound.renderOptions(for: sequence), defaultThreads: threadsPerJob)
            options.sampleRate = sampleRate
            return options
        }
        // The fonts load before anything is written: a font that cannot be loaded leaves the manifest as it was.
        let renderer = try CommandFailure.describing(.badSoundFont) { try BatchRenderer(inputs: selected, settings: settings) }
        if encoding.dryRun {
            print(settings.dryRunReport(renderer.plan(options: options), manifest: batch.manifest, problems: problems.count))
            if !problems.isEmpty { throw CommandFailure(nil, .someInputsFailed) }
            return
        }
        // Ctrl-C and SIGTERM are caught before the manifest is rewritten, so they end the batch through its
        // normal path (the earlier manifest's lines kept) from then on.
        let interruption = Interruption()
        let manifest = try openManifest(settings: settings, protecting: inputs.map(\.path))
        let progress = BatchProgress(inputs: selected, sampleRate: sampleRate) { CommandLineOutput.note($0) }
        let ending = renderer.run(manifest: manifest, problems: problems, isInterrupted: { interruption.isRequested },
                                  observer: progress.record, options: options)
        progress.finish()
        switch ending {
        case .manifestFailed(let failure, _):
            throw CommandFailure("\(failure); finished outputs are kept, a rerun renders the rest", .inputOutput)
        case .interrupted:
            throw CommandFailure("interrupted; finished outputs are kept, a rerun renders the rest", .interrupted)
        case .finished(let results):
            CommandLineOutput.note(BatchProgress.summary(results, problems: problems.count, shard: batch.parsedShard.map { ("\($0)", inputs.count) }))
            if !problems.isEmpty || results.contains(where: \.hasFailed) { throw CommandFailure(nil, .someInputsFailed) }
        }
    }

    /// The manifest file asked for (emptied), or nil; throws (status 5) when it is refused or cannot
    /// be created. A manifest inside the output directory gets the directory made first.
    private func openManifest(settings: BatchRenderSettings, protecting inputs: [String]) throws(CommandFailure) -> BatchManifest? {
        guard let path = batch.manifest else { return nil }
        // A manifest on standard output keeps it to itself: what plugins print goes to standard error.
        if path == "-" { StandardOutput.reserveForData() }
        return try CommandFailure.describing(.inputOutput, prefix: "manifest ") { try BatchManifest.opening(path: path, settings: settings, protecting: inputs) }
    }

    /// The paths given, `-` replaced by the lines of standard input.
    private func batchPaths() -> [String] {
        sound.song.songs.flatMap { path -> [String] in
            guard path == "-" else { return [path] }
            let text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            return BatchInputDiscovery.paths(fromList: text)
        }
    }
}
