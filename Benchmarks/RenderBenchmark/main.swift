// Helpers for Benchmarks/render-vs-fluidsynth.sh, one per subcommand:
//
//   RenderBenchmark tempo-stress-song OUT.mid   writes the tempo-stress click song (1200 tempo changes)
//   RenderBenchmark timing AUDIO                 onset errors of a render of that song (any renderer)
//   RenderBenchmark allocations SONG.mid FONT    heap allocations per rendered block in steady state
//
// The timing check is the one RenderTests runs: onset = first non-zero sample after silence,
// latency calibrated on the click at tick 0, error against the exact tempo-map time.
import AllocationCounter
import AudioFiles
import Foundation
import MIDIFile
import Rendering
import RenderTestSupport

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("RenderBenchmark: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch (arguments.first, arguments.count) {
    case ("tempo-stress-song", 2):
        let song = TempoStressSong()
        try MIDIFileWriter.write(song.sequence, to: arguments.last!)
        print("\(song.tempoChanges.count) tempo changes, \(song.clickTicks.count) clicks")

    case ("timing", 2):
        let reader = try AudioFileReader(path: arguments.last!)
        let channels = try reader.readAll()
        let onsets = OnsetTiming.onsets(in: channels[0])
        let report = OnsetTiming.compare(onsets: onsets, expected: TempoStressSong().clickSampleTimes(sampleRate: reader.sampleRate))
        print("\(report.foundCount)/\(report.expectedCount) \(report.maximumError) \(String(format: "%.2f", report.meanError))")

    case ("allocations", 3):
        let argumentList = Array(arguments)
        let sequence = try MIDIFileReader.read(contentsOf: argumentList[1]).sequence
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [argumentList[2]], options: RenderOptions())
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("render-benchmark-\(getpid()).wav").path
        let writer = try AudioFileWriter(path: output, sampleRate: renderer.options.sampleRate, channelCount: 2)
        defer { writer.cancel() }
        // Steady state: after the first second (first notes, lazily built runtime state).
        let warmUpBlocks = renderer.options.sampleRate / renderer.options.blockFrames
        var blocks = 0, countedBlocks = 0, counting = false
        var counts = seqplay_alloc_counts(allocations: 0, frees: 0)
        while true {
            if blocks == warmUpBlocks {
                counting = true
                seqplay_alloc_count_begin()
            }
            guard let block = renderer.renderNextBlock() else { break }
            try writer.write(left: block[0].baseAddress!, right: block[1].baseAddress!, frameCount: block.frameLength)
            blocks += 1
            if counting { countedBlocks += 1 }
        }
        if counting { counts = seqplay_alloc_count_end() }
        print("\(counts.allocations) \(countedBlocks) \(String(format: "%.4f", countedBlocks > 0 ? Double(counts.allocations) / Double(countedBlocks) : 0))")

    default:
        fail("usage: RenderBenchmark tempo-stress-song OUT.mid | timing AUDIO | allocations SONG.mid FONT.sf2")
    }
} catch {
    fail("\(error)")
}
