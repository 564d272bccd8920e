import AllocationCounter
import Atomics
import AudioGraph
import Sampler
import Foundation
import MIDICore
import MIDIFile
import Player
@testable import Rendering
import XCTest

/// Channel groups rendered ahead of the mix on helper threads (`--threads`): the helpers allocate
/// nothing, and neither a seek nor more queued events than a queue holds changes the output
/// against one thread rendering every group in step with the mix.
final class GroupRenderAheadTests: RenderTestCase {
    /// Two channels of fast notes: `notesPerChannel` notes each, one every `spacing` ticks (60: 16 a
    /// second), with a note-off and a pitch bend per note.
    private func busySong(notesPerChannel: Int, spacing: Int64 = 60) -> MusicSequence {
        var events: [TimedEvent] = []
        for channel: UInt8 in [0, 1] {
            events.append(TimedEvent(tick: 0, .midi(.programChange(channel: channel, program: channel == 0 ? 0 : 40))))
            for i in 0..<notesPerChannel {
                let tick = Int64(i) * spacing
                let note = UInt8(48 + (i * 7 + Int(channel) * 5) % 36)
                events.append(TimedEvent(tick: tick, .midi(.pitchBend(channel: channel, value: UInt16(8192 + (i % 64) * 16)))))
                events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: note, velocity: 90))))
                events.append(TimedEvent(tick: tick + spacing * 5 / 6, .midi(.noteOff(channel: channel, note: note, velocity: 0))))
            }
        }
        return MusicSequence(tracks: [MusicTrack(events: events.sorted { $0.tick < $1.tick })])
    }

    private func options(threads: Int) -> RenderOptions {
        var options = RenderOptions()
        options.channelSplit = .balanced(2)
        options.threads = threads
        options.tail = .fixed(seconds: 1)
        return options
    }

    /// The left channel, then the right, of a render, seeking to each `seeks` target (player samples)
    /// after its number of blocks.
    private func renderBlocks(_ sequence: MusicSequence, threads: Int, seeks: [Int: Int64] = [:]) throws -> [Float] {
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont], options: options(threads: threads))
        var left: [Float] = [], right: [Float] = []
        var blocks = 0
        while let block = renderer.renderNextBlock() {
            left += Array(block[0])
            right += Array(block[1])
            blocks += 1
            if let target = seeks[blocks] { renderer.seek(toSample: target) }
        }
        return left + right
    }

    /// `one` and `two` (left then right, as `renderBlocks` returns them) hold the same samples in `frames`.
    private func assertSame(_ one: [Float], _ two: [Float], in frames: Range<Int>, _ message: String) {
        XCTAssertEqual(one.count, two.count, message)
        let length = one.count / 2
        for channel in 0..<2 {
            let range = (channel * length + frames.lowerBound)..<(channel * length + min(frames.upperBound, length))
            XCTAssertTrue(one[range] == two[range], "\(message), channel \(channel)")
        }
    }

    /// 6,000 notes on each of two channels, 160 a second, with a bend each: 18,000 events a group
    /// within the 38 s the helpers may render ahead, more than its queue holds (the fan-out waits
    /// for the helper to take some) — the same samples as one thread.
    func testMoreEventsAheadThanAQueueHoldsAreAllPlayed() throws {
        let sequence = busySong(notesPerChannel: 6_000, spacing: 6)
        XCTAssertGreaterThan(3 * 6_000, GroupEventQueue.capacity, "more events than one queue holds")
        let one = try renderBlocks(sequence, threads: 1)
        let two = try renderBlocks(sequence, threads: 2)
        XCTAssertEqual(one.count, two.count)
        XCTAssertTrue(one == two, "two threads rendering ahead sound as one thread")
        XCTAssertGreaterThan(one.map(abs).max() ?? 0, 0.05, "notes sounded")
    }

    /// A seek back and a seek forward while the helpers are ahead: what they rendered is dropped and
    /// the render goes on from the new place as on one thread, the same samples from 1 s after the
    /// seek on (in that second, the notes sounding when the player moved release from where the
    /// groups had got to, not from where the mix was).
    func testSeekingDropsWhatWasRenderedAhead() throws {
        let sequence = busySong(notesPerChannel: 400)
        let blockFrames = RenderOptions().blockFrames
        for (after, target) in [(300, Int64(44_100)), (100, Int64(44_100 * 10))] {
            let one = try renderBlocks(sequence, threads: 1, seeks: [after: target])
            let two = try renderBlocks(sequence, threads: 2, seeks: [after: target])
            let settled = after * blockFrames + 44_100
            XCTAssertGreaterThan(one.count / 2, settled + 44_100 * 5)
            assertSame(one, two, in: 0..<after * blockFrames, "before the seek to \(target)")
            assertSame(one, two, in: settled..<Int.max, "from 1 s after the seek to \(target) on")
        }
    }

    /// 150 seeks a few blocks apart, back and forth, each while the helpers are rendering ahead:
    /// no hang, and from 1 s after the last the samples are one thread's.
    func testManySeeksInARowKeepTheirPlace() throws {
        let sequence = busySong(notesPerChannel: 400)
        var seeks: [Int: Int64] = [:]
        for index in 0..<150 { seeks[10 + index * 3] = Int64(index % 2 == 0 ? 44_100 * 2 : 44_100 * 12) + Int64(index * 97) }
        let one = try renderBlocks(sequence, threads: 1, seeks: seeks)
        let two = try renderBlocks(sequence, threads: 2, seeks: seeks)
        let settled = (10 + 149 * 3) * RenderOptions().blockFrames + 44_100
        XCTAssertGreaterThan(one.count / 2, settled + 44_100 * 5)
        assertSame(one, two, in: settled..<Int.max, "from 1 s after the last seek on")
    }

    /// The helper threads allocate and free nothing while they render (counted on each helper
    /// from its 8th range on, with the driving thread counted too), nor when what they rendered
    /// ahead is dropped and they start again.
    func testHelperThreadsAllocateNothing() throws {
        let sequence = busySong(notesPerChannel: 400)
        let options = options(threads: 2)
        let fonts = try SharedSoundFonts(paths: [Self.generalMIDIFont])
        let groups = try XCTUnwrap(options.channelSplit.groups(for: sequence))
        XCTAssertEqual(groups.groups.count, 2)
        let player = try MusicPlayer(sequence: sequence, sampleRate: options.sampleRate, options: options.song)
        let router = SongEventRouter(source: player, channels: groups.groups, groupCount: groups.groups.count)
        let format = AudioFormat(sampleRate: 44_100, channelCount: 2)
        let samplers = try router.queues.map { queue in
            let sampler = try SongRenderer.makeSampler(options: options) { $0.addSoundFonts(fonts) }
            try sampler.prepare(AudioNodeRenderSetup(connectedInputBuses: [], inputFormats: [], outputFormats: [format], maximumFrameCount: 512))
            sampler.eventSource = queue
            return sampler
        }
        router.receivers = samplers
        let counts = AllocationCounts()
        let counting = [ManagedAtomic(false), ManagedAtomic(false)]
        let probe = GroupRenderAhead.HelperProbe(
            willRender: { thread, range in
                if range == 8, !counting[thread].exchange(true, ordering: .relaxed) { seqplay_alloc_count_begin() }
            },
            didStop: { thread in counts.record(thread, seqplay_alloc_count_end()) })
        let ledger = VoiceLedger(budget: options.sampler.polyphony, groups: 2, rangesOf: 4_096)
        router.ledger = ledger
        let ahead = GroupRenderAhead(samplers: samplers, router: router, ledger: ledger, threads: 2, rangeFrames: 4_096,
                                     format: format, probe: probe)
        var peak: Float = 0
        var time: Int64 = 0
        for _ in 0..<8 {
            _ = ahead.rangeSlot(at: time)
            time += 512
        }
        seqplay_alloc_count_begin()
        for step in 0..<2_000 {
            // Halfway, what was rendered ahead is dropped, as a seek does, and the ranges start again.
            if step == 1_000 { ahead.discard() }
            let (slot, offset) = ahead.rangeSlot(at: time)
            peak = max(peak, ahead.output(ofGroup: 0, slot: slot)[0][offset], ahead.output(ofGroup: 1, slot: slot)[0][offset])
            time += 512
        }
        let driving = seqplay_alloc_count_end()
        ahead.stop()
        XCTAssertGreaterThan(peak, 0.01, "notes sounded")
        XCTAssertEqual(driving.allocations, 0, "the driving thread")
        XCTAssertEqual(counts.all.count, 2, "both helpers reported")
        for (thread, helper) in counts.all {
            XCTAssertEqual(helper.allocations, 0, "helper \(thread)")
            XCTAssertEqual(helper.frees, 0, "helper \(thread)")
        }
    }
}

/// What each helper thread counted.
private final class AllocationCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: seqplay_alloc_counts] = [:]

    func record(_ thread: Int, _ value: seqplay_alloc_counts) {
        lock.lock()
        counts[thread] = value
        lock.unlock()
    }

    var all: [Int: seqplay_alloc_counts] {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}
