import AudioFiles
import Foundation
import MIDIFile
import Rendering
import XCTest

/// Every well-formed file of the shared corpus renders without error, as `seqplay -o` renders it
/// (channel groups), to a file as long as the song plus the tail (within 10 ms).
final class CorpusTests: RenderTestCase {
    private static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/wellformed")

    func testEveryWellFormedCorpusFileRenders() throws {
        guard FileManager.default.fileExists(atPath: Self.corpus.path) else {
            throw XCTSkip("no corpus at \(Self.corpus.path) (../shared/corpus relative to the package root)")
        }
        let files = FileManager.default.enumerator(atPath: Self.corpus.path)!.compactMap { $0 as? String }
            .filter { $0.lowercased().hasSuffix(".mid") }.sorted()
        let directory = try temporaryDirectory()
        let tail = 0.25, sampleRate = 22_050
        var rendered = 0, audioSeconds = 0.0
        for file in files {
            let path = Self.corpus.appendingPathComponent(file).path
            do {
                let sequence = try MIDIFileReader.read(contentsOf: path).sequence
                var options = RenderOptions().renderingToFile(threads: 1)
                options.sampleRate = sampleRate
                options.tail = .fixed(seconds: tail)
                let output = directory.appendingPathComponent("out.wav").path
                let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont], options: options)
                try renderer.render(to: try AudioFileWriter(path: output, sampleRate: sampleRate, channelCount: 2))
                let seconds = Double(try AudioFileReader(path: output).frameCount) / Double(sampleRate)
                let songSeconds = TempoMap(sequence: sequence.concatenatingPatterns()).durationInSeconds
                XCTAssertEqual(seconds, songSeconds + tail, accuracy: 0.01, file)
                rendered += 1
                audioSeconds += seconds
            } catch {
                XCTFail("\(file): \(error)")
            }
        }
        print("corpus: \(rendered) of \(files.count) well-formed files rendered, \(Int(audioSeconds)) s of audio")
        XCTAssertEqual(rendered, files.count)
    }
}
