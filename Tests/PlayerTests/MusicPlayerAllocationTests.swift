import AllocationCounter
import MIDICore
import MIDIFile
import Player
import XCTest

/// Delivering events allocates nothing, to a sampler's receiver and to a destination, through seeks
/// (the chased state, the notes ended), loop jumps and MIDI clock. (A mute or solo change picked up
/// mid-play is not covered: in debug builds each ManagedAtomic load of the flags allocates.)
final class MusicPlayerAllocationTests: XCTestCase {
    private final class Sink: MIDIReceiver {
        var count = 0
        func receive(_ message: MIDIMessage) { count += 1 }
    }

    private final class Counter: SongDestination {
        var count = 0
        func receive(_ event: SongEvent) { count += 1 }
    }

    func testDeliveryDoesNotAllocate() throws {
        let sequence = try XCTUnwrap(SongDestinationTests.demoSong())
        var settings = SongOptions(loop: LoopRegion(from: .seconds(2), to: .seconds(6), count: 2))
        settings.midiClock = true
        let player = try MusicPlayer(sequence: sequence, sampleRate: 48_000, options: settings)
        let sink = Sink()
        let timed = Counter()
        func pass() {
            for block in stride(from: Int64(5 * 48_000), through: player.durationInSamples + 64, by: 64) {
                if block % 128 == 0 {
                    player.deliverEvents(before: block + 32, to: sink)
                } else {
                    player.deliverEvents(before: block + 32, to: timed)
                }
            }
        }
        // A first pass warms up what the runtime sets up once; then seek (on this "control" thread)
        // and count a whole second pass of deliveries.
        player.setTrack(1, muted: true)
        player.seek(toSample: 5 * 48_000)
        pass()
        player.seek(toSample: 5 * 48_000)
        seqplay_alloc_count_begin()
        pass()
        let counts = seqplay_alloc_count_end()
        XCTAssertGreaterThan(sink.count, 100)
        XCTAssertGreaterThan(timed.count, 100)
        XCTAssertEqual(counts.allocations, 0, "allocations while delivering")
    }
}
