import AudioFiles
import Foundation
import SoundFontFile
import TestSupport
import XCTest

/// An SF3 font's Ogg Vorbis samples, decoded by libsndfile into the hydra's one array of points: each sample
/// in the place its count gave it, the same points as the sample decoded alone; a sample libsndfile cannot
/// read refuses the font with a line naming it.
extension SamplerEngineTests {
    static let libsndfileSamples = CompressedSampleDecoder(
        pointCount: InMemoryAudioDecoder.frameCount, decode: InMemoryAudioDecoder.decode16BitMono)

    /// Each sample header's byte range in the file's `smpl` chunk and its type, as the file holds them.
    private static func storedSampleHeaders(of path: String) throws -> (file: Data, smpl: SoundFontStructure.Chunk, headers: [(start: Int, end: Int, type: Int)]) {
        let structure = try SoundFontStructure(path: path)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let shdr = try XCTUnwrap(structure.tables["shdr"])
        let smpl = try XCTUnwrap(structure.sampleChunks.first { $0.id == "smpl" })
        func uint(_ at: Int, _ bytes: Int) -> Int { (0..<bytes).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) } }
        let headers = (0..<(shdr.size / 46 - 1)).map { index in
            let record = shdr.dataOffset + index * 46
            return (start: uint(record + 20, 4), end: uint(record + 24, 4), type: uint(record + 44, 2))
        }
        return (file, smpl, headers)
    }

    func testCompressedSamplesAreDecodedIntoTheirCountedPlaces() throws {
        let path = Self.museScoreGeneral
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no \(path)") }
        let hydra = try SoundFontHydra(path: path, compressedSamples: Self.libsndfileSamples)
        let (file, smpl, stored) = try Self.storedSampleHeaders(of: path)
        XCTAssertEqual(hydra.samples.count, stored.count)
        var next = 0
        for sample in hydra.samples {
            XCTAssertEqual(sample.start, next, "sample '\(sample.name)' does not follow the one before it")
            next = sample.end
        }
        XCTAssertEqual(next, hydra.sampleData.count, "the samples do not cover the points exactly")
        let compressed = stored.indices.filter { stored[$0].type & 0x10 != 0 }
        XCTAssertGreaterThan(compressed.count, 1000)
        // Samples spread over the font, each decoded alone from its bytes, equal their place in the array.
        for index in stride(from: 0, to: compressed.count, by: compressed.count / 12).map({ compressed[$0] }) {
            let bytes = file.subdata(in: (smpl.dataOffset + stored[index].start)..<(smpl.dataOffset + stored[index].end))
            let alone: [Int16] = try bytes.withUnsafeBytes { raw in
                let count = try XCTUnwrap(InMemoryAudioDecoder.frameCount(raw))
                var points = [Int16](repeating: 0, count: count)
                let written = points.withUnsafeMutableBufferPointer { InMemoryAudioDecoder.decode16BitMono(raw, into: $0) }
                XCTAssertEqual(written, count, "sample \(index) decodes to another length than libsndfile counts")
                return points
            }
            let sample = hydra.samples[index]
            XCTAssertGreaterThan(alone.count, 0)
            XCTAssertEqual(Array(hydra.sampleData[sample.start..<sample.end]), alone, "sample \(index) '\(sample.name)'")
        }
        print("SF3 \(hydra.samples.count) samples (\(compressed.count) compressed): \(hydra.sampleData.count) points")
    }

    func testAnSF3SampleLibsndfileCannotReadRefusesTheFontByName() throws {
        let path = Self.museScoreGeneral
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no \(path)") }
        var (file, smpl, stored) = try Self.storedSampleHeaders(of: path)
        let index = try XCTUnwrap(stored.indices.dropFirst(5).first { stored[$0].type & 0x10 != 0 })
        let start = smpl.dataOffset + stored[index].start
        file.replaceSubrange(start..<(start + 64), with: [UInt8](repeating: 0x55, count: 64))  // no Ogg page header
        let scratch = try ScratchDirectory(prefix: "sf3-hostile")
        defer { scratch.remove() }
        let hostile = scratch.path("hostile.sf3")
        try file.write(to: URL(fileURLWithPath: hostile))
        do {
            _ = try SoundFontHydra(path: hostile, compressedSamples: Self.libsndfileSamples)
            XCTFail("a sample libsndfile cannot read was accepted")
        } catch {
            let line = "\(error)"
            XCTAssertTrue(line.contains("sample \(index) ") && line.contains("cannot be decoded"), line)
            XCTAssertFalse(line.contains("\n"), line)
        }
        XCTAssertThrowsError(try SoundFontHydra(path: hostile), "an SF3 font was read without a decoder")
    }
}
