import AudioFiles
import Foundation
import MIDIFile
import Rendering
import XCTest

/// Every well-formed file of the shared corpus renders without error, as `seqplay -o` renders it
/// (channel groups), to a file as long as the song plus the tail (within 10 ms).
final class CorpusTests: RenderTestCase {
    /// $SEQPLAY_CORPUS, else ../shared/corpus beside the package: its well-formed files.
    private static let corpus = ProcessInfo.processInfo.environment["SEQPLAY_CORPUS"].map { URL(fileURLWithPath: $0) }
        .map { $0.appendingPathComponent("wellformed") }
        ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/wellformed")

    func testEveryWellFormedCorpusFileRenders() throws {
        guard FileManager.default.fileExists(atPath: Self.corpus.path) else {
            throw XCTSkip("no corpus at \(Self.corpus.path) (set SEQPLAY_CORPUS, or put ../shared/corpus beside the package)")
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

    /// Every hostile, broken and synthetic corpus file the reader accepts (with repairs) renders its
    /// first 5 s as `seqplay -o` does (two channel groups on two threads) and as channel stems (a
    /// group per channel), without a trap: files with no channel message, no track, 2000 empty
    /// tracks, 20000 tempo changes, huge deltas.
    func testEveryReadableHostileCorpusFileRendersAsAFileAndAsStems() throws {
        let root = Self.corpus.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: root.path) else { throw XCTSkip("no corpus at \(root.path)") }
        let directory = try temporaryDirectory()
        let sampleRate = 11_025
        var readable = 0, refused = 0
        for folder in ["malformed", "synthetic", "fuzz-crashes"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)!.compactMap { $0 as? String }
                .filter { !$0.hasSuffix(".md") && !$0.hasSuffix(".json") }.sorted()
            for file in files {
                let path = base.appendingPathComponent(file).path
                guard let sequence = try? MIDIFileReader.read(contentsOf: path).sequence else { refused += 1; continue }
                readable += 1
                for split in [ChannelSplit.balanced(RenderOptions.fileChannelGroups), .perChannel] {
                    var options = RenderOptions()
                    options.channelSplit = split
                    options.threads = 2
                    options.sampleRate = sampleRate
                    options.song.end = .seconds(5)
                    options.tail = .fixed(seconds: 0.1)
                    let output = directory.appendingPathComponent("out.wav").path
                    do {
                        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont], options: options)
                        try renderer.render(to: try AudioFileWriter(path: output, sampleRate: sampleRate, channelCount: 2))
                    } catch {
                        XCTFail("\(folder)/\(file) \(split): \(error)")
                        continue
                    }
                    let frames = try AudioFileReader(path: output).frameCount
                    XCTAssertLessThanOrEqual(frames, Int64(sampleRate * 6), "\(folder)/\(file)")
                }
            }
        }
        print("hostile corpus: \(readable) files read (with repairs) rendered as a file and as stems; \(refused) refused by the reader")
        XCTAssertGreaterThan(readable, 100)
    }
}
