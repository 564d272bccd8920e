import AllocationCounter
import MIDICore
import MIDIFile
import Player
import XCTest

/// `SongFeedSource`: a song on request pulled beside a live source, handed to the render thread without
/// an allocation; stopping it (or starting another) ends exactly its notes and lets go of its pedals.
final class SongFeedSourceTests: XCTestCase {
    /// A live source with nothing to say.
    private final class Silence: ScheduledMIDISource {
        func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {}
    }

    /// Counts what it gets, in storage made up front.
    private final class Sink: MIDIReceiver {
        let sounding = UnsafeMutableBufferPointer<Int>.allocate(capacity: 16 * 128)
        var noteOns = 0
        var pedalsReleased = 0
        var messages = 0
        init() { sounding.initialize(repeating: 0) }
        deinit { sounding.deallocate() }
        func receive(_ message: MIDIMessage) {
            messages += 1
            switch message {
            case .noteOn(let channel, let note, let velocity) where velocity > 0:
                noteOns += 1
                sounding[Int(channel) * 128 + Int(note)] += 1
            case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
                sounding[Int(channel) * 128 + Int(note)] -= 1
            case .controlChange(_, 64, 0), .controlChange(_, 66, 0):
                pedalsReleased += 1
            default:
                break
            }
        }
        var soundingCount: Int { sounding.reduce(0) { $0 + max(0, $1) } }
    }

    private var time: Int64 = 0

    private func deliver(_ feed: SongFeedSource, _ sink: Sink, seconds: Double) {
        for _ in 0..<Int(seconds * 48_000 / 64) {
            feed.deliverEvents(before: time + 32, to: sink)
            time += 64
        }
    }

    func testAHandedOverSongPlaysWithoutAllocatingAndStopEndsItsNotes() throws {
        let sequence = try XCTUnwrap(SongDestinationTests.demoSong())
        let feed = SongFeedSource(base: Silence())
        let sink = Sink()
        deliver(feed, sink, seconds: 0.5)
        XCTAssertEqual(sink.messages, 0)
        let player = try MusicPlayer(sequence: sequence, sampleRate: 48_000)
        XCTAssertTrue(feed.play(player, channels: 0b11))
        XCTAssertFalse(feed.isSettled, "the render thread has not taken it yet")
        seqplay_alloc_count_begin()
        deliver(feed, sink, seconds: 3)
        let counts = seqplay_alloc_count_end()
        XCTAssertEqual(counts.allocations, 0, "allocations while taking the song and playing it")
        XCTAssertTrue(feed.isSettled)
        XCTAssertGreaterThan(sink.noteOns, 0, "the song played")
        XCTAssertGreaterThan(sink.soundingCount, 0, "notes are sounding at 3 s")

        feed.stop()
        deliver(feed, sink, seconds: 64.0 / 48_000)
        XCTAssertEqual(sink.soundingCount, 0, "stop ended every note the song had sounding")
        XCTAssertEqual(sink.pedalsReleased, 4, "sustain and sostenuto let go on the song's two channels")
        XCTAssertNil(feed.player)
        let after = sink.messages
        deliver(feed, sink, seconds: 2)
        XCTAssertEqual(sink.messages, after, "nothing more from the song")
    }

    func testAnotherSongEndsTheFirstsNotesThenPlaysFromItsStart() throws {
        let sequence = try XCTUnwrap(SongDestinationTests.demoSong())
        let feed = SongFeedSource(base: Silence())
        let sink = Sink()
        XCTAssertTrue(feed.play(try MusicPlayer(sequence: sequence, sampleRate: 48_000), channels: 0))
        deliver(feed, sink, seconds: 3)
        let first = sink.noteOns
        XCTAssertGreaterThan(sink.soundingCount, 0)
        let second = try MusicPlayer(sequence: sequence, sampleRate: 48_000)
        XCTAssertTrue(feed.play(second, channels: 0))
        // One block: the first song's notes end, the second's first notes (at its time 0) start.
        let sounding = sink.soundingCount
        deliver(feed, sink, seconds: 64.0 / 48_000)
        XCTAssertTrue(feed.isSettled)
        XCTAssertTrue(feed.player === second)
        XCTAssertLessThan(sink.soundingCount, sounding + 1, "the first song's notes ended")
        deliver(feed, sink, seconds: 3)
        XCTAssertEqual(sink.noteOns - first, first, "the second song played its first 3 s as the first did")
    }
}
