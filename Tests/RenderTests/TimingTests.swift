import AudioFiles
import Effects
import Foundation
import LV2
import MIDIFile
import Rendering
import RenderTestSupport
import XCTest

/// Every note lands within 32 samples of its exact tempo-map time, however many tempo changes.
final class TimingTests: RenderTestCase {
    func testClicksLandWithin32SamplesUnderOverAThousandTempoChanges() throws {
        let song = TempoStressSong()
        XCTAssertGreaterThanOrEqual(song.tempoChanges.count, 1_000)
        // Through the file format, as a user's song would come.
        let file = try temporaryDirectory().appendingPathComponent("tempo-stress.mid").path
        try MIDIFileWriter.write(song.sequence, to: file)
        let sequence = try MIDIFileReader.read(contentsOf: file, mode: .strict).sequence

        let sampleRate = 44_100
        var options = dryOptions(tail: 0.2)
        options.sampleRate = sampleRate
        let audio = try render(sequence, fonts: [Self.clickFont], options: options)

        let onsets = OnsetTiming.onsets(in: audio[0])
        let report = OnsetTiming.compare(onsets: onsets, expected: song.clickSampleTimes(sampleRate: sampleRate))
        print("seqplay timing, \(song.tempoChanges.count) tempo changes, \(song.clickTicks.count) clicks: \(report)")
        XCTAssertEqual(report.foundCount, report.expectedCount, "every click is heard as its own onset")
        XCTAssertLessThanOrEqual(report.maximumError, 32)
        XCTAssertTrue((0..<64).contains(report.latency), "the first click starts within its 64-sample block")
    }

    /// With an effect chain whose limiter looks 5 ms (220 samples) ahead, the render starts that much
    /// earlier, so every click's attack stays within 32 samples of where it is without effects (where
    /// the test above holds it to its exact time). Without the compensation they move by 220.
    func testEffectLatencyIsCompensated() throws {
        let song = TempoStressSong()
        var options = dryOptions(tail: 0.2)
        options.sampleRate = 44_100
        let clicks = song.clickSampleTimes(sampleRate: options.sampleRate)
        let plain = try render(song.sequence, fonts: [Self.clickFont], options: options)[0]
        options.effects = try EffectChainSpec(parsing: "eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter")
        let processed = try render(song.sequence, fonts: [Self.clickFont], options: options)[0]

        // A click's attack: the first sample reaching half the loudest one near its time (the reverb
        // leaves no silence to measure onsets from).
        func attacks(in audio: [Float]) -> [Int] {
            clicks.map { time in
                let window = max(0, time - 128)..<min(audio.count, time + 512)
                let loudest = audio[window].map(abs).max() ?? 0
                return window.first { abs(audio[$0]) >= loudest / 2 } ?? -1
            }
        }
        let shifts = zip(attacks(in: plain), attacks(in: processed)).map { $1 - $0 }
        let worst = shifts.map(abs).max() ?? 0
        print("seqplay timing with --fx eq;reverb;limiter: \(clicks.count) clicks, attacks moved by at most \(worst) samples"
            + " (mean \(shifts.reduce(0, +) / max(1, shifts.count)))")
        XCTAssertLessThanOrEqual(worst, 32)
    }
}
