import AllocationCounter
import Foundation
import MIDIFile
import Rendering
import XCTest

/// A song rendered as channel groups (a synthesizer per group, the outputs summed) against the same
/// song on one synthesizer: the same output within float rounding, reverb and chorus on, whatever
/// the split and the thread count.
final class ChannelGroupRenderTests: RenderTestCase {
    static let songs = ["beethoven-ode-to-joy", "pachelbel-canon"].map {
        packageRoot.appendingPathComponent("Songs/\($0).mid").path
    }

    func renderFrames(_ sequence: MusicSequence, _ split: ChannelSplit, threads: Int = 1) throws -> [[Float]] {
        var options = RenderOptions()
        options.channelSplit = split
        options.threads = threads
        options.tail = .fixed(seconds: 2)
        return try render(sequence, fonts: [Self.generalMIDIFont], options: options)
    }

    /// The largest difference in dBFS, and how many samples would differ once stored as 16-bit.
    func compare(_ a: [[Float]], _ b: [[Float]]) -> (dBFS: Double, int16Differences: Int) {
        var worst: Float = 0, differences = 0
        for channel in 0..<2 {
            XCTAssertEqual(a[channel].count, b[channel].count)
            for i in 0..<min(a[channel].count, b[channel].count) {
                worst = max(worst, abs(a[channel][i] - b[channel][i]))
                if (a[channel][i] * 32767).rounded() != (b[channel][i] * 32767).rounded() { differences += 1 }
            }
        }
        return (20 * log10(Double(max(worst, 1e-30))), differences)
    }

    func testGroupsSumToOneSynthesizerWithReverbAndChorus() throws {
        for path in Self.songs {
            let sequence = try MIDIFileReader.read(contentsOf: path).sequence
            let single = try renderFrames(sequence, .none)
            XCTAssertGreaterThan(single[0].map(abs).max() ?? 0, 0.05)
            for (split, threads) in [(ChannelSplit.perChannel, 1), (.balanced(2), 2), (.balanced(3), 2)] {
                let grouped = try renderFrames(sequence, split, threads: threads)
                let (dBFS, differences) = compare(single, grouped)
                print("\((path as NSString).lastPathComponent) \(split) threads \(threads): groups − one synthesizer \(String(format: "%.1f", dBFS)) dBFS, \(differences) of \(single[0].count * 2) samples differ at 16 bits")
                XCTAssertLessThan(dBFS, -90, "\(path) \(split)")
            }
        }
    }

    /// The thread count changes who renders which group, not the output: bit for bit the same.
    func testThreadCountDoesNotChangeTheOutput() throws {
        let sequence = try MIDIFileReader.read(contentsOf: Self.songs[0]).sequence
        let one = try renderFrames(sequence, .balanced(4), threads: 1)
        XCTAssertEqual(one, try renderFrames(sequence, .balanced(4), threads: 2))
        XCTAssertEqual(one, try renderFrames(sequence, .balanced(4), threads: 4))
    }

    /// A song with no channel message (a SysEx, then silence until its End of Track) has no group to
    /// play: every split renders its length as silence, as one synthesizer does (whose reverb adds
    /// FluidSynth's anti-denormal offset, about -160 dBFS).
    func testSongWithoutChannelMessagesRendersSilenceInEverySplit() throws {
        let gmOn = TimedEvent(tick: 0, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7]))
        let end = TimedEvent(tick: 1920, .meta(.endOfTrack))
        let sequence = MusicSequence(tracks: [MusicTrack(events: [gmOn, end])])
        let single = try renderFrames(sequence, .none)
        XCTAssertEqual(single[0].count, 44_100 * 4, "2 s of song and the 2 s tail")
        for (split, threads) in [(ChannelSplit.perChannel, 1), (.balanced(2), 1), (.balanced(2), 2), (.groups(ChannelGroups([])), 1)] {
            let grouped = try renderFrames(sequence, split, threads: threads)
            let (dBFS, differences) = compare(single, grouped)
            XCTAssertLessThan(dBFS, -120, "\(split) threads \(threads)")
            XCTAssertEqual(differences, 0, "\(split) threads \(threads)")
        }
    }

    /// Rendering channel groups allocates nothing on the thread driving the render: with one thread
    /// it renders every group itself (all the groups' render code), with two it also waits at the
    /// barrier (the helper thread runs the same group code).
    func testRenderingGroupsAllocatesNothing() throws {
        let sequence = try MIDIFileReader.read(contentsOf: Self.songs[0]).sequence
        for threads in [1, 2] {
            var options = RenderOptions()
            options.channelSplit = .balanced(3)
            options.threads = threads
            let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont], options: options)
            for _ in 0..<16 { _ = renderer.renderNextBlock() }
            var peak: Float = 0
            seqplay_alloc_count_begin()
            for _ in 0..<2_000 {
                guard let block = renderer.renderNextBlock() else { break }
                peak = max(peak, block.peak)
            }
            let counts = seqplay_alloc_count_end()
            XCTAssertGreaterThan(peak, 0.01, "notes sounded")
            XCTAssertEqual(counts.allocations, 0, "threads \(threads)")
            XCTAssertEqual(counts.frees, 0, "threads \(threads)")
        }
    }
}
