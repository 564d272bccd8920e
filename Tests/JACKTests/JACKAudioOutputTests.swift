import AllocationCounter
import Atomics
import AudioGraph
import Foundation
import JACK
import JACKTestSupport
import XCTest

/// The JACK audio driver against a real server: every frame rendered reaches the ports in order,
/// at any block size; the process callback does not allocate; a server that dies ends playback.
final class JACKAudioOutputTests: XCTestCase {
    override func setUpWithError() throws {
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
    }

    func testEveryRenderedFrameReachesThePortsInOrderAtBlockSizes64_256And1024() throws {
        for blockFrames in [64, 256, 1024] {
            let server = try JACKTestServer(blockFrames: blockFrames)
            let recorder = try JACKTestRecorder(name: "rec", serverName: server.name, capacity: 48_000)
            let output = try JACKOutput(settings: JACKOutputSettings(serverName: server.name, connection: .matching("^rec:")))
            XCTAssertEqual(output.periodFrames, blockFrames)
            XCTAssertEqual(output.sampleRate, 48_000)
            XCTAssertNil(output.scheduling)
            let source = RampSource(format: AudioFormat(sampleRate: 48_000, channelCount: 2))
            try output.start(engine: connectedEngine(), source: source, frameCount: 12_000, onEnd: nil)
            XCTAssertEqual(output.waitUntilEnded(), .completed)
            XCTAssertEqual(output.sampleTime, 12_000)
            usleep(100_000)
            let left = recorder.samples(channel: 0), right = recorder.samples(channel: 1)
            let first = try XCTUnwrap(left.firstIndex { $0 != 0 }, "nothing recorded at block size \(blockFrames)")
            let played = Array(left[first...].prefix { $0 != 0 })
            XCTAssertEqual(played.count, 12_000, "block size \(blockFrames)")
            let wrong = played.indices.filter { played[$0] != Float($0 + 1) || right[first + $0] != -played[$0] }
            XCTAssertEqual(wrong.count, 0, "frames lost, repeated or reordered at block size \(blockFrames), first at \(wrong.first ?? 0): \(wrong.prefix(4).map { (played[$0], right[first + $0]) })")
        }
    }

    func testTheProcessCallbackDoesNotAllocateInSteadyState() throws {
        let server = try JACKTestServer(blockFrames: 128)
        let output = try JACKOutput(settings: JACKOutputSettings(serverName: server.name, connection: .none))
        let source = RampSource(format: AudioFormat(sampleRate: 48_000, channelCount: 2), countsAllocations: true)
        try output.start(engine: connectedEngine(), source: source, frameCount: 128 * 80, onEnd: nil)
        XCTAssertEqual(output.waitUntilEnded(), .completed)
        XCTAssertGreaterThanOrEqual(source.countedCycles, 50)
        XCTAssertEqual(source.allocations, 0, "allocations in JACK's process thread between two renders")
    }

    func testAServerThatDiesEndsPlaybackWithItsReasonWithinTwoSeconds() throws {
        let server = try JACKTestServer()
        let output = try JACKOutput(settings: JACKOutputSettings(serverName: server.name))
        let ended = ManagedAtomic(false)
        try output.start(engine: connectedEngine(), source: RampSource(format: AudioFormat(sampleRate: 48_000, channelCount: 2)),
                         frameCount: nil) { _ in ended.store(true, ordering: .relaxed) }
        usleep(200_000)
        XCTAssertGreaterThan(output.sampleTime, 0)
        let killed = Date()
        server.kill()
        while !ended.load(ordering: .relaxed) && Date().timeIntervalSince(killed) < 2 { usleep(5_000) }
        XCTAssertTrue(ended.load(ordering: .relaxed), "no end reported within 2 s of the server's death")
        guard case .failed(let error) = output.stop(draining: true) else { return XCTFail("not a driver failure") }
        XCTAssertEqual(error.kind, .deviceDisappeared)
        XCTAssertTrue(error.description.contains("JACK server '\(server.name)' shut down"), error.description)
        XCTAssertLessThan(Date().timeIntervalSince(killed), 2)
    }

    func testNoServerIsReportedAsSuch() {
        XCTAssertThrowsError(try JACKOutput(settings: JACKOutputSettings(serverName: "seqplay-none"))) {
            XCTAssertEqual($0 as? JACKError, .noServer(server: "seqplay-none"))
        }
    }
}

/// An engine that renders (silence); the tests play their own source in front of it.
private func connectedEngine() -> AudioEngine {
    let engine = AudioEngine()
    _ = engine.mainMixerNode
    return engine
}

/// Renders a ramp: frame n of the run is n + 1 on the left and -(n + 1) on the right, so a recording
/// shows any lost, repeated or reordered frame. Optionally counts allocations on the calling thread
/// from one render to the next (the driver's copy, libjack's cycle hand-over, the next cycle's start).
private final class RampSource: RealtimeRenderSource, @unchecked Sendable {
    private let buffer: AudioBuffer
    private var next: Float = 1
    private let countsAllocations: Bool
    private var cycle = 0
    private(set) var allocations = 0
    private(set) var countedCycles = 0

    init(format: AudioFormat, countsAllocations: Bool = false) {
        buffer = AudioBuffer(format: format, frameCapacity: 4096)
        self.countsAllocations = countsAllocations
    }

    func renderBlock(frameCount: Int) -> AudioBuffer? {
        if countsAllocations {
            cycle += 1
            if cycle > 10 {
                allocations += seqplay_alloc_count_end().allocations
                countedCycles += 1
            }
            seqplay_alloc_count_begin()
        }
        buffer.frameLength = frameCount
        let left = buffer[0], right = buffer[1]
        for frame in 0..<frameCount {
            left[frame] = next
            right[frame] = -next
            next += 1
        }
        return buffer
    }
}
