import Foundation
import TestSupport
import XCTest

/// `seqplay --engine seqplay|fluidsynth` (the built binary): the shipped songs rendered by seqplay's engine
/// sound like libfluidsynth's render of them, the engine's render is the same bytes on any `--threads`,
/// and an unknown engine is refused as bad usage.
final class EngineCommandLineTests: XCTestCase {
    static let songs: [String] = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let directory = url.appendingPathComponent("Songs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".mid") }.sorted().map { directory.appendingPathComponent($0).path }
    }()

    /// The first 30 s of `song` rendered dry by `engine` with `font` as 32-bit float WAV, read back interleaved.
    func render(_ song: String, font: String, engine: String, threads: Int = 1, scratch: ScratchDirectory) throws -> (samples: [Float], data: Data) {
        let output = scratch.path("\((song as NSString).lastPathComponent)-\(engine)-\(threads).wav")
        let run = try runSeqplay(["render", song, "--sf2", font, "--engine", engine, "--no-reverb", "--no-chorus", "--end", "30",
                                  "--bit-depth", "float", "--threads", "\(threads)", "-o", output], timeLimit: 600)
        XCTAssertEqual(run.status, 0, run.standardError)
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return (Self.floatSamples(ofWAV: data), data)
    }

    /// The sample points of a float WAV's data chunk.
    static func floatSamples(ofWAV data: Data) -> [Float] {
        let bytes = [UInt8](data)
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
                let end = min(bytes.count, offset + 8 + size)
                return bytes[(offset + 8)..<end].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            }
            offset += 8 + size + (size & 1)
        }
        return []
    }

    func testSongsSoundAlikeWithBothEngines() throws {
        let scratch = try ScratchDirectory(prefix: "engine-songs")
        var worst = (level: 0.0, envelope: 0.0, name: "")
        for font in SamplerEngineTests.fonts {
            for song in Self.songs {
                let ours = try render(song, font: font, engine: "seqplay", scratch: scratch).samples
                let reference = try render(song, font: font, engine: "fluidsynth", scratch: scratch).samples
                let frames = min(ours.count, reference.count) / 2
                XCTAssertGreaterThan(frames, 44_100)
                let c = SamplerEngineTests.compare(ours: ours, reference: reference, start: 0, analysed: frames)
                let name = "\((song as NSString).lastPathComponent) with \((font as NSString).lastPathComponent)"
                print(String(format: "--engine seqplay vs fluidsynth, %@: fluidsynth %.1f dBFS, level %+.2f dB, envelope %.2f dB",
                             name, c.referenceLevel, c.levelDifference, c.envelopeDifference))
                if abs(c.levelDifference) > abs(worst.level) || c.envelopeDifference > worst.envelope {
                    worst = (c.levelDifference, max(c.envelopeDifference, worst.envelope), name)
                }
                XCTAssertLessThan(abs(c.levelDifference), 1, name)
                XCTAssertLessThan(c.envelopeDifference, 2, name)
            }
        }
        print(String(format: "--engine seqplay vs fluidsynth: worst %@ (level %+.2f dB, envelope %.2f dB)", worst.name, worst.level, worst.envelope))
    }

    func testEngineRenderIsTheSameBytesOnOneAndTwoThreads() throws {
        let scratch = try ScratchDirectory(prefix: "engine-threads")
        let song = try XCTUnwrap(Self.songs.first)
        let one = try render(song, font: SamplerEngineTests.shippedFont, engine: "seqplay", threads: 1, scratch: scratch)
        let two = try render(song, font: SamplerEngineTests.shippedFont, engine: "seqplay", threads: 2, scratch: scratch)
        XCTAssertGreaterThan(one.samples.count, 2 * 44_100)
        XCTAssertGreaterThan(one.samples.map(abs).max() ?? 0, 0.01, "the engine's render is not silent")
        XCTAssertEqual(one.data, two.data)
    }

    func testUnknownEngineIsOneLineOfBadUsage() throws {
        let scratch = try ScratchDirectory(prefix: "engine-unknown")
        let output = scratch.path("out.wav")
        let run = try runSeqplay(["render", try XCTUnwrap(Self.songs.first), "--engine", "timidity", "-o", output], timeLimit: 60)
        XCTAssertEqual(run.status, 64)
        let lines = run.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, run.standardError)
        XCTAssertTrue(run.standardError.hasPrefix("seqplay: ") && run.standardError.contains("timidity"), run.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
