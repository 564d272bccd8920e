import AudioFiles
import MIDIFile
import Rendering

/// `seqplay SONG.mid -o FILE`: renders the song to an audio file with a progress bar; Ctrl-C leaves no file.
extension RenderCommand {
    func render(_ sequence: MusicSequence, to path: String) throws {
        let interruption = Interruption()
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: sound.fontPaths, options: renderOptions(for: sequence))
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: path, format: file.format, sampleFormat: file.bitDepth?.sampleFormat,
                                         sampleRate: sound.sampleRate, channelCount: 2, protecting: [song.song] + sound.fontPaths)
        } catch {
            throw RenderError.audioFile(error)
        }
        let progress = ProgressBar(expectedFrames: renderer.maximumFrames, sampleRate: sound.sampleRate)
        guard let frames = try renderer.render(to: writer, isCancelled: { interruption.isRequested }, progress: { progress.update(frames: $0) }) else {
            CommandLineOutput.fail("interrupted; \(path) was not written", .interrupted)
        }
        progress.finish(frames: frames)
    }
}
