import AudioFiles
import Foundation
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
}
