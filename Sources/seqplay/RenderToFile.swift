import AudioFiles
import Foundation
import SeqplaySupport
import MIDIFile
import Rendering

/// `seqplay SONG.mid -o FILE` (`PlaybackMode.file`): renders the song to an audio file with a progress
/// bar; Ctrl-C leaves no file.
struct RenderToFile {
    let sound: SongSound
    let encoding: EncodingArguments
    let file: FileArguments
    let waveform: WaveformOption
    let threading: ThreadsArgument

    func render(_ sequence: MusicSequence, to path: String) throws {
        let interruption = Interruption()
        var options = threading.fileOptions(try sound.renderOptions(for: sequence),
                                          defaultThreads: AvailableCores.count)
        options.sampleRate = encoding.sampleRate(sound.sampleRate, for: fileFormat(of: path))
        let fontPaths = try sound.fontPaths()
        // Standard output is the WAV's alone: what plugins print (from instantiation on) goes to stderr.
        if path == "-" && !encoding.dryRun { StandardOutput.reserveForData() }
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: fontPaths, options: options)
        if encoding.dryRun {
            return print(renderer.dryRunReport(path: path, format: fileFormat(of: path), sampleFormat: file.bitDepth?.sampleFormat,
                                               quality: encoding.quality, bitrateMode: encoding.bitrateMode))
        }
        let inputs = [sound.song.song] + fontPaths
        try waveform.refuseUnwritable(protecting: inputs + [path])
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: path, format: file.format, sampleFormat: file.bitDepth?.sampleFormat,
                                         sampleRate: renderer.options.sampleRate, channelCount: 2,
                                         expectedFrameCount: renderer.maximumFrames, protecting: inputs)
            try writer.apply(encoding.encoding(for: sequence))
        } catch {
            throw RenderError.audioFile(error)
        }
        let progress = ProgressBar(expectedFrames: renderer.maximumFrames, sampleRate: renderer.options.sampleRate)
        guard let rendered = try renderer.renderMeasuringPeak(to: writer, isCancelled: { interruption.isRequested },
                                                              progress: { progress.update(frames: $0) }) else {
            throw CommandFailure("interrupted; \(path) was not written", .interrupted)
        }
        progress.finish(frames: rendered.frames)
        if rendered.peak > 1, writer.sampleFormat?.isInteger ?? false {
            CommandLineOutput.note(RenderedAudio.clippingNote(path, peak: rendered.peak))
        }
        try waveform.draw(audio: path, sequence: sequence, protecting: inputs + [path])
    }

    /// The format `-o path` is written in: `--format`, else the extension's (WAV for a stream).
    private func fileFormat(of path: String) -> AudioFileFormat {
        file.format ?? AudioFileFormat(pathExtension: (path as NSString).pathExtension) ?? .wav
    }
}
