import AudioFiles
import Rendering
import Foundation
import TestSupport
import XCTest

final class NormalizationTests: BatchTestCase {
    /// ffmpeg's ebur128 filter (an independent meter) measures the target within 0.5 LU, and no
    /// sample of the 16-bit output sits at full scale.
    func testNormalizedRenderMeasuresTheTargetWithAnIndependentMeter() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            throw XCTSkip("ffmpeg is not installed (Scripts/setup installs it)")
        }
        let root = try temporaryDirectory(), out = try temporaryDirectory()
        try writeCorpus(in: root, count: 2, seconds: 4)
        for target in [-23.0, -16.0] {
            let run = try seqplay(["render", root, "--output-dir", out + "/\(Int(-target))", "--lufs", "\(target)", "--manifest",
                                   out + "/m\(Int(-target)).jsonl", "--sf2", Self.generalMIDIFont])
            XCTAssertEqual(run.status, 0, run.standardError)
            for name in ["song0.wav", "set1/deeper/song1.wav"] {
                let path = out + "/\(Int(-target))/" + name
                let measured = try ffmpegIntegratedLoudness(path)
                print("normalized to \(target) LUFS: ffmpeg ebur128 measures \(measured) LUFS (\(name))")
                XCTAssertEqual(measured, target, accuracy: 0.5, name)
                let samples = try AudioFileReader(path: path).readAll()
                XCTAssertLessThan(samples.flatMap { $0 }.map(abs).max() ?? 0, 32767.0 / 32768, "no sample clipped")
            }
        }
    }

    func testAGainThatWouldClipAnIntegerOutputIsLoweredAndSaid() {
        let gain = NormalizationGain(.loudness(lufs: -5), loudness: -30, peak: 0.5, integerOutput: true)
        XCTAssertTrue(gain.isLimited)
        XCTAssertLessThanOrEqual(0.5 * gain.factor, 1)
        XCTAssertGreaterThan(0.5 * gain.factor, 0.999)
        let float = NormalizationGain(.loudness(lufs: -5), loudness: -30, peak: 0.5, integerOutput: false)
        XCTAssertFalse(float.isLimited)
        XCTAssertEqual(float.decibels, 25, accuracy: 1e-9)
        XCTAssertEqual(NormalizationGain(.peak(dBFS: -1), loudness: nil, peak: 0.25, integerOutput: true).decibels,
                       -1 + 20 * log10(4.0), accuracy: 1e-9)
    }

    private func ffmpegIntegratedLoudness(_ path: String) throws -> Double {
        let text = try runCommand(URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                                  ["-nostats", "-hide_banner", "-i", path, "-af", "ebur128", "-f", "null", "-"]).standardError
        // The summary's "I:         -23.0 LUFS" line (the last "I:" in the output).
        let line = try XCTUnwrap(text.split(separator: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") })
        let value = line.split(separator: " ").compactMap { Double($0) }.first
        return try XCTUnwrap(value, String(line))
    }
}
