import AudioFiles
import Sampler
import AudioGraph
import Foundation
import MIDIFile
import Player
import SeqplaySupport

/// One worker of a batch: renders inputs one after another on its thread, each through a new sampler
/// playing the batch's shared fonts.
final class BatchWorker {
    private let settings: BatchRenderSettings
    private let isCancelled: @Sendable () -> Bool
    private let observer: @Sendable (BatchRenderer.Event) -> Void
    private let options: @Sendable (MusicSequence) throws -> RenderOptions
    private let fonts: SharedSoundFonts

    init(settings: BatchRenderSettings, fonts: SharedSoundFonts, isCancelled: @escaping @Sendable () -> Bool,
         observer: @escaping @Sendable (BatchRenderer.Event) -> Void,
         options: @escaping @Sendable (MusicSequence) throws -> RenderOptions) {
        self.settings = settings
        self.isCancelled = isCancelled
        self.observer = observer
        self.options = options
        self.fonts = fonts
    }

    /// Renders `input` (or skips it when an earlier run finished it); nil when cancelled meanwhile. What it
    /// returns completes the output (`PendingOutput`) and gives the result.
    func render(_ input: BatchInput) -> PendingResult? {
        let outputPath = settings.outputPath(for: input)
        func result(_ status: BatchResult.Status, repairs: Int = 0) -> PendingResult {
            PendingResult { BatchResult(input: input, outputPath: outputPath, status: status, repairs: repairs) }
        }
        if !settings.overwritesFinishedOutputs, settings.isFinished(input, options: options) {
            return result(.skipped)
        }
        let read: MIDIFileReadResult
        do {
            read = try MIDIFileReader.read(contentsOf: input.path, mode: settings.readMode)
        } catch {
            return result(.failed("\(error)"))
        }
        let repairs = read.warnings.count
        do {
            let songOptions = try options(read.sequence)
            guard let pending = try render(read.sequence, options: songOptions, to: outputPath, input: input.path) else { return nil }
            return PendingResult {
                do {
                    return BatchResult(input: input, outputPath: outputPath, status: .rendered(try pending.complete()), repairs: repairs)
                } catch {
                    return BatchResult(input: input, outputPath: outputPath, status: .failed("\(input.path): \(error)"), repairs: repairs)
                }
            }
        } catch {
            return result(.failed("\(input.path): \(error)"), repairs: repairs)
        }
    }

    /// Renders `sequence` (read from `input`) to `outputPath`; neither the output nor its labels may be the input or a font.
    private func render(_ sequence: MusicSequence, options: RenderOptions, to outputPath: String, input: String) throws -> PendingOutput? {
        let started = Date()
        // Prepared once for the mix, its measuring pass and its stems.
        let song = PreparedSong(sequence)
        try OutputDirectory.prepare(for: outputPath)
        let inputs = [input] + settings.soundFontPaths
        // The labels file is refused (a directory, read-only, an input…) before the song is rendered.
        let labelsPath = NoteLabels.path(besideOutput: outputPath)
        let labelsTarget = settings.writesLabels ? try OutputTarget.resolve(labelsPath, protecting: inputs + [outputPath]) : nil
        var gain = NormalizationGain.none
        if let normalization = settings.normalization {
            guard let measured = try measure(song, options: options) else { return nil }
            gain = NormalizationGain(normalization, loudness: measured.loudness, peak: measured.peak,
                                     integerOutput: settings.storesIntegers)
        }
        let renderer = try makeRenderer(song, options: options)
        var recorder: NoteRecorder!
        let frameScale = 1 / Double(options.effects?.varispeedRate ?? 1)
        renderer.interceptEvents { source in
            recorder = NoteRecorder(source: source, frameScale: frameScale)
            return recorder
        }
        let meter = settings.measuresLoudness ? LoudnessMeter(sampleRate: options.sampleRate) : nil
        let writer = try AudioFileWriter(path: outputPath, format: settings.format, sampleFormat: settings.sampleFormat,
                                         sampleRate: options.sampleRate, channelCount: options.outputChannelCount,
                                         expectedFrameCount: renderer.maximumFrames, protecting: inputs)
        if let encoding = settings.encoding { try writer.apply(encoding(sequence)) }
        let mix = BlockFileWriter(file: writer, gain: gain.factor)
        var reported: Int64 = 0
        let rendered = try renderer.render(into: mix, isCancelled: isCancelled,
                                           progress: { written in
                                               self.observer(.progress(frames: written - reported))
                                               reported = written
                                           },
                                           afterBlock: { (block, count) throws(AudioFileError) in
                                               meter?.add(block, frameCount: count)
                                           })
        guard rendered else { return nil }
        let peak = mix.peak
        let parts = recorder.parts()
        var stems: [StemOutput] = []
        if let mode = settings.stems {
            guard let rendered = try renderStems(mode, of: song, options: options, parts: parts, frames: renderer.renderedFrames,
                                                 songFrames: renderer.songFrames, gain: gain.factor, mixPath: outputPath) else {
                writer.cancel()
                return nil
            }
            stems = rendered
        }
        let frames = renderer.renderedFrames, settings = settings, renderSeconds = Date().timeIntervalSince(started)
        return PendingOutput { () throws -> RenderedAudio in
            let notes = recorder.finishedNotes(endFrame: frames)
            // The labels first: when they cannot be written, the output is dropped with them (a failed input leaves neither).
            if let labelsTarget {
                let text = NoteLabels.text(notes, sampleRate: options.sampleRate) { note in
                    settings.stems.map { StemPlan.stemName(of: note, mode: $0) } ?? "mix"
                }
                do {
                    try OutputFile.write(Data(text.utf8), to: labelsTarget, named: labelsPath)
                } catch {
                    writer.cancel()
                    throw error
                }
            }
            try writer.finish()
            return RenderedAudio(frames: frames, sampleRate: options.sampleRate, peak: peak,
                                 renderSeconds: renderSeconds, loudness: meter?.integratedLoudness,
                                 clips: peak > 1 && settings.storesIntegers, parts: parts, stems: stems, gain: gain)
        }
    }
}

/// A song's output rendered but not yet complete: closing the file (whose `fsync` waits for the
/// disk: 10-20 ms measured here, where the rest of a song's fixed cost is ~1.5 ms of CPU), renaming
/// it to its name and writing its labels. The batch does this on another thread while the worker renders its next song.
/// Handed from the worker to that thread, then touched by it alone.
// Why unchecked: handed from the worker to the finishing queue and touched there alone (the worker never keeps a reference).
struct PendingOutput: @unchecked Sendable {
    let complete: () throws -> RenderedAudio
}

/// An input's result, once its output (if any) is complete; see `PendingOutput`.
// Why unchecked: handed from the worker to the finishing queue and touched there alone (the worker never keeps a reference).
struct PendingResult: @unchecked Sendable {
    let complete: () -> BatchResult
}

/// The output's directory, made when missing, and temporary files left in it by an earlier run that
/// was killed while writing this output removed.
enum OutputDirectory {
    static func prepare(for outputPath: String) throws {
        let directory = (outputPath as NSString).deletingLastPathComponent
        let name = (outputPath as NSString).lastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        for entry in listed where entry.hasPrefix("." + name + ".") && entry.hasSuffix(".tmp") {
            unlink((directory as NSString).appendingPathComponent(entry))
        }
    }
}

extension BatchWorker {
    /// Renders the stems of `mode` after the mix, each exactly `frames` long, so they sum to the mix
    /// within float rounding (without `--fx`); silent stems are not written. Channel and program
    /// stems render in one pass, each stem a channel group (a synthesizer of its own); track stems,
    /// and any stems with `--fx`, one render each, with only the stem's channels or track sounding.
    /// Each starts from the same initial state as the mix. Nil when cancelled.
    func renderStems(_ mode: StemMode, of song: PreparedSong, options: RenderOptions, parts: [RenderedPart],
                     frames: Int64, songFrames: Int64, gain: Float, mixPath: String) throws -> [StemOutput]? {
        var options = options
        options.tail = .fixed(seconds: Double(max(0, frames - songFrames)) / Double(options.sampleRate))
        if let stems = StemPlan.channelGroups(mode, parts: parts, sequence: song.sequence, options: options) {
            options.channelSplit = .groups(ChannelGroups(stems.map { $0.output.channels.map(Int.init) }))
            let renderer = try makeRenderer(song, options: options)
            let files = try StemFiles(stems, mixPath: mixPath, settings: settings, sampleRate: options.sampleRate, frames: frames, gain: gain)
            guard try renderer.render(into: BlockFileWriter(file: nil), frames: frames, isCancelled: isCancelled,
                                      afterBlock: { (_, count) throws(AudioFileError) in
                                          guard let groups = renderer.channelGroups else { return }
                                          try files.write(groups, instruments: renderer.instruments, count: count)
                                      }) else {
                files.cancel()
                return nil
            }
            return try files.finish()
        }
        var outputs: [StemOutput] = []
        for stem in StemPlan.stems(mode, parts: parts, sequence: song.sequence, options: options) {
            var stemOptions = options
            stem.restrict(&stemOptions)
            let renderer = try makeRenderer(song, options: stemOptions)
            let file = try StemFile(stem, besideMix: mixPath, settings: settings, sampleRate: options.sampleRate,
                                    channelCount: options.outputChannelCount, frames: frames, gain: gain)
            guard try renderer.render(into: file.output, frames: frames, isCancelled: isCancelled) else { return nil }
            let output = try file.finish()
            outputs.append(output)
        }
        return outputs
    }
}

extension BatchWorker {
    /// The loudness and peak of the song's mix, rendered and thrown away (the first of the two
    /// passes of a normalized render); nil when cancelled.
    func measure(_ song: PreparedSong, options: RenderOptions) throws -> (loudness: Double?, peak: Float)? {
        let renderer = try makeRenderer(song, options: options)
        let meter = LoudnessMeter(sampleRate: options.sampleRate)
        let measured = BlockFileWriter(file: nil)
        guard try renderer.render(into: measured, isCancelled: isCancelled,
                                  afterBlock: { block, count in meter?.add(block, frameCount: count) }) else { return nil }
        let peak = measured.peak
        return (meter?.integratedLoudness, peak)
    }

    /// A renderer of `song` whose sampler plays the shared fonts.
    private func makeRenderer(_ song: PreparedSong, options: RenderOptions) throws -> SongRenderer {
        try SongRenderer(song: song, options: options) { () throws(RenderError) in
            try SongRenderer.makeSampler(options: options) { $0.addSoundFonts(fonts) }
        }
    }
}

private extension LoudnessMeter {
    /// Measures the first `count` frames of a stereo block (a mono one is not measured).
    func add(_ block: AudioBuffer, frameCount count: Int) {
        guard block.channelCount == 2 else { return }
        add(left: block[0].baseAddress!, right: block[1].baseAddress!, frameCount: count)
    }
}
