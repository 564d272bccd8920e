import AllocationCounter
import AudioGraph
import XCTest

/// The render path through the player, converters, router and level meter allocates nothing.
final class AllocationTestsForNewNodes: XCTestCase {
    func testPlayerConvertersRouterAndMeterRenderWithoutAllocating() throws {
        let quad = AudioFormat(sampleRate: 44_100, channelCount: 4)
        let player = AudioPlayerNode(format: .standard)
        let toMono = ConverterNode(channelCount: 1)
        let swap = ConverterNode(channelMap: [1, 0])
        let engine = try makeOfflineEngine(format: quad, maximumFrameCount: 512, attaching: [player, toMono, swap])
        let splitter = SplitterNode(outputCount: 2)
        engine.attach(splitter)
        engine.connect(player, to: splitter)
        engine.connect(splitter, to: swap, fromBus: 0)
        engine.connect(splitter, to: toMono, fromBus: 1)
        let router = try engine.connectRoutes(["main": swap, "click": toMono], map: ChannelMap(parsing: "main:1-2,click:3-4"))
        let meter = LevelMeterTap()
        router.installTap(meter, at: .output(bus: 0))
        try engine.start()

        let loop = AudioBuffer(format: .standard, frameCapacity: 1000)
        loop.frameLength = 1000
        for i in 0..<1000 { loop[0][i] = Float(i % 100) / 100; loop[1][i] = 0.25 }
        try player.scheduleBuffer(loop, at: 300, loops: AudioPlayerNode.loopForever)
        try player.scheduleBuffer(loop, at: 5000, loops: 3)
        player.play()
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 512) }

        var peak: Float = 0
        seqplay_alloc_count_begin()
        for _ in 0..<400 {
            guard let block = engine.renderBlock(frameCount: 512) else { break }
            peak = max(peak, block[2][511])
        }
        let counts = seqplay_alloc_count_end()

        XCTAssertGreaterThan(peak, 0.1, "the player reached the router")
        XCTAssertGreaterThan(meter.level(ofChannel: 0).rms, -20)
        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(counts.frees, 0)
    }
}
