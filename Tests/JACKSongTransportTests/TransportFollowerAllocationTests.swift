import AllocationCounter
import AudioGraph
import Foundation
import JACK
@testable import Sessions
import JACKTestSupport
import MIDIFile
import Rendering
import XCTest

/// Following the JACK transport on a real server does not allocate on JACK's process thread: the
/// transport read, the slow-sync answers, the timebase and the song's rendering, while the
/// transport is started, located (rolling and stopped) and stopped again and again, and the seek
/// thread moves the song (the seeks themselves allocate, off the process thread).
final class TransportFollowerAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
    }

    func testFollowingAndLeadingTheTransportDoNotAllocateOnTheProcessThread() throws {
        let server = try JACKTestServer(blockFrames: 128)
        let output = try JACKOutput(settings: JACKOutputSettings(serverName: server.name, connection: .none))
        let song = try MIDIFileReader.read(contentsOf: "Songs/beethoven-ode-to-joy.mid").sequence
        let playback = try SongPlayback(sequence: song, soundFontPaths: ["SoundFonts/seqplay-gm.sf2"], options: RenderOptions(),
                                        output: output)
        let client = output.jack.client
        let follower = TransportFollower(playback: playback, client: client)
        try client.setSyncHandler(follower)
        try client.becomeTimebaseMaster(SongTimebase(player: playback.renderer.player))
        let counting = CountingSource(follower)
        follower.startSeekThread()
        try playback.start(through: counting)
        let frames = [0, 96_000, 24_000, 150_000, 48_000]
        for (index, frame) in frames.enumerated() {
            try client.transportLocate(frame: frame)
            client.transportStart()
            usleep(300_000)
            if index % 2 == 0 { try client.transportLocate(frame: frame + 12_345) }  // while rolling
            usleep(300_000)
            client.transportStop()
            usleep(150_000)
        }
        playback.stop(draining: false)
        follower.stopSeekThread()
        print("transport follower: \(counting.countedCycles) cycles counted, \(counting.allocations) allocations, "
              + "\(follower.seekCount.load(ordering: .relaxed)) seeks")
        // At least one seek per round of locates: on a busy host two locates 300 ms apart may reach the
        // follower as one (it seeks to the newest), so the count is not always two a round.
        XCTAssertGreaterThanOrEqual(follower.seekCount.load(ordering: .relaxed), frames.count)
        XCTAssertGreaterThan(counting.countedCycles, 500)
        XCTAssertEqual(counting.allocations, 0)
    }
}

/// Stands in front of the follower and counts allocations on the process thread from one cycle's
/// start to the next's: the follower's cycle, the timebase callback, libjack's hand-over, the next
/// cycle's sync callback. Counting starts after 10 rendered blocks (the Swift runtime instantiates
/// some generic metadata, once per process, the first time the graph renders).
private final class CountingSource: RealtimeRenderSource, @unchecked Sendable {
    private let follower: TransportFollower
    private var renderedBlocks = 0
    private(set) var allocations = 0
    private(set) var countedCycles = 0

    init(_ follower: TransportFollower) { self.follower = follower }

    func renderBlock(frameCount: Int) -> AudioBuffer? {
        if renderedBlocks > 10 {
            allocations += seqplay_alloc_count_end().allocations
            countedCycles += 1
        }
        seqplay_alloc_count_begin()
        let block = follower.renderBlock(frameCount: frameCount)
        if block != nil { renderedBlocks += 1 }
        return block
    }
}
