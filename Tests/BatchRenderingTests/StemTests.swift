import AudioFiles
import Rendering
import Foundation
import MIDIFile
import XCTest

final class StemTests: BatchTestCase {
    /// Every stem is as long as its mix and is the render of its part alone (the song with only its
    /// channels sounding), and the stems sum to the mix within float rounding (below −90 dBFS),
    /// reverb and chorus on: channel and program stems come from one pass (a synthesizer per stem,
    /// the mix their sum), track stems from a render per track.
    func testStemsAreTheirPartsRenderedAloneAndSumToTheMix() throws {
        let root = try temporaryDirectory()
        try writeCorpus(in: root, count: 2, seconds: 3)
        for mode in StemMode.allCases {
            let out = try temporaryDirectory()
            var settings = BatchRenderSettings(outputDirectory: out, soundFontPaths: [Self.generalMIDIFont])
            settings.stems = mode
            settings.sampleFormat = .float32
            let results = try BatchRenderer(inputs: BatchInputDiscovery.discover([root]).inputs, settings: settings).run { _ in RenderOptions() }
            for result in results {
                guard case .rendered(let audio) = result.status else { return XCTFail("\(result.status)") }
                let written = audio.stems.compactMap(\.path)
                XCTAssertGreaterThanOrEqual(written.count, mode == .program ? 3 : 4, "\(mode)")
                let mix = try AudioFileReader(path: result.outputPath).readAll()
                var sum = [[Float]](repeating: [Float](repeating: 0, count: mix[0].count), count: 2)
                for path in written {
                    let stem = try AudioFileReader(path: path).readAll()
                    XCTAssertEqual(stem[0].count, mix[0].count, path)
                    for channel in 0..<2 { for i in 0..<mix[0].count { sum[channel][i] += stem[channel][i] } }
                }
                var worst: Float = 0, mixPeak: Float = 0
                for channel in 0..<2 {
                    for i in 0..<mix[0].count {
                        worst = max(worst, abs(sum[channel][i] - mix[channel][i]))
                        mixPeak = max(mixPeak, abs(mix[channel][i]))
                    }
                }
                let dBFS = 20 * log10(Double(max(worst, 1e-20)))
                print("stems \(mode) of \(result.input.relativePath): \(written.count) files, sum − mix peak \(String(format: "%.1f", dBFS)) dBFS (mix peak \(mixPeak))")
                XCTAssertGreaterThan(mixPeak, 0.05)
                XCTAssertLessThan(dBFS, -90, "stems \(mode) of \(result.input.relativePath) sum to the mix")
                guard mode == .channel, let drums = audio.stems.first(where: \.isDrums), let drumsPath = drums.path else { continue }
                var options = RenderOptions()
                options.song.soloedChannels = [9]
                options.tail = .fixed(seconds: 60)
                let alone = try SongRenderer(sequence: try MIDIFileReader.read(contentsOf: result.input.path).sequence,
                                             soundFontPaths: [Self.generalMIDIFont], options: options)
                var frames: [Float] = []
                while let block = alone.renderNextBlock(), frames.count < mix[0].count {
                    frames += UnsafeBufferPointer(start: block[0].baseAddress!, count: block.frameLength)
                }
                XCTAssertEqual(Array(frames.prefix(mix[0].count)), try AudioFileReader(path: drumsPath).readAll()[0], "drum stem = drums alone")
            }
        }
    }

    /// The mix beside stems of every mode is the file `seqplay song.mid -o` writes, byte for byte, in
    /// 16-bit and in float: the stems render in a pass of their own, never in place of the mix.
    func testTheMixBesideStemsIsThePlainRender() throws {
        let root = try temporaryDirectory()
        let song = (root as NSString).appendingPathComponent("song.mid")
        try MIDIFileWriter.write(Self.song(seed: 3, seconds: 3), to: song)
        for depth in ["16", "float"] {
            let plain = (root as NSString).appendingPathComponent("plain-\(depth).wav")
            let run = try seqplay([song, "-o", plain, "--sf2", Self.generalMIDIFont, "--bit-depth", depth])
            XCTAssertEqual(run.status, 0, run.standardError)
            let expected = try Data(contentsOf: URL(fileURLWithPath: plain))
            for mode in StemMode.allCases {
                let out = try temporaryDirectory()
                let batch = try seqplay(["render", song, "--output-dir", out, "--sf2", Self.generalMIDIFont, "--bit-depth", depth,
                                         "--stems", mode.rawValue])
                XCTAssertEqual(batch.status, 0, batch.standardError)
                let stems = files(under: out).filter { $0 != "song.wav" }
                XCTAssertGreaterThanOrEqual(stems.count, 3, "\(mode) stems written")
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/song.wav")), expected,
                               "the mix beside \(mode) stems (\(depth)) is the plain render")
            }
        }
    }
}
