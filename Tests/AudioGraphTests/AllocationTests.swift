import AllocationCounter
import AudioGraph
import XCTest

/// Proves the render path allocation-free with the AllocationCounter malloc interposer.
final class AllocationTests: XCTestCase {
    func testTheCounterSeesAnAllocationMadeOnPurpose() {
        seqplay_alloc_count_begin()
        let array = Array(repeating: 1.5, count: Int.random(in: 1000...2000))
        let counts = seqplay_alloc_count_end()
        XCTAssertGreaterThan(array.count, 0)
        XCTAssertGreaterThanOrEqual(counts.allocations, 1)
    }

    func testTheCounterSeesAFree() {
        var array: [Int]? = Array(0..<Int.random(in: 1000...2000))
        seqplay_alloc_count_begin()
        array = nil
        let counts = seqplay_alloc_count_end()
        XCTAssertNil(array)
        XCTAssertGreaterThanOrEqual(counts.frees, 1)
    }

    func testRenderingTenSecondsThroughToneMixerAndModifyTapAllocatesNothing() throws {
        let tone = ToneGeneratorNode(frequency: 440, amplitude: 0.8)
        let engine = try makeOfflineEngine(maximumFrameCount: 512, attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        engine.mainMixerNode.setPan(-0.3, forInput: 0)
        engine.mainMixerNode.installTap(GainTap(gain: 0.5), at: .output(bus: 0))
        try engine.start()

        // Warm-up: first calls may fill lazily made runtime caches (metadata, witness tables).
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 512) }

        let cycles = 44_100 * 10 / 512 + 1
        var rendered = 0
        var peak: Float = 0
        seqplay_alloc_count_begin()
        for _ in 0..<cycles {
            guard let block = engine.renderBlock(frameCount: 512) else { break }
            rendered += block.frameLength
            peak = max(peak, abs(block[0][100]))
        }
        let counts = seqplay_alloc_count_end()

        XCTAssertGreaterThanOrEqual(rendered, 44_100 * 10)
        XCTAssertGreaterThan(peak, 0.1, "the render produced sound")
        XCTAssertEqual(counts.allocations, 0, "allocations while rendering \(rendered) frames")
        XCTAssertEqual(counts.frees, 0)
    }

    func testObserveTapAndSplitterRenderWithoutAllocating() throws {
        let tone = ToneGeneratorNode()
        let splitter = SplitterNode(outputCount: 2)
        let engine = try makeOfflineEngine(maximumFrameCount: 512, attaching: [tone, splitter])
        engine.connect([tone, splitter, engine.mainMixerNode])
        engine.connect(splitter, to: engine.mainMixerNode, fromBus: 1)
        let observer = ObserveTap(capacity: 4096)
        engine.mainMixerNode.installTap(observer, at: .input(bus: 1))
        try engine.start()
        let consumed = AudioBuffer(format: tone.format, frameCapacity: 4096)
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 512) }

        seqplay_alloc_count_begin()
        for cycle in 0..<200 {
            _ = engine.renderBlock(frameCount: 512)
            if cycle % 4 == 3 { observer.read(into: consumed) }
        }
        let counts = seqplay_alloc_count_end()

        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(observer.droppedFrames, 0)
    }
}
