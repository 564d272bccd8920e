import AudioGraph
import XCTest

final class ChannelMapTests: XCTestCase {
    func testTheIssueExampleParsesAndPrintsBack() throws {
        let map = try ChannelMap(parsing: "main:1-2, click:3-4")
        XCTAssertEqual(map.routes, [.init(name: "main", deviceChannels: 1...2), .init(name: "click", deviceChannels: 3...4)])
        XCTAssertEqual(map.requiredChannelCount, 4)
        XCTAssertEqual(map.description, "main:1-2,click:3-4")
        XCTAssertEqual(try ChannelMap(parsing: "click:3").routes, [.init(name: "click", deviceChannels: 3...3)])
    }

    func testBadMapsAreRefusedSayingWhatIsWrong() {
        func error(_ text: String) -> ChannelMapError? {
            do { _ = try ChannelMap(parsing: text); return nil } catch { return error }
        }
        XCTAssertEqual(error("main"), .malformedEntry("main"))
        XCTAssertEqual(error("main:2-1"), .malformedEntry("main:2-1"))
        XCTAssertEqual(error("main:1-2,"), .malformedEntry(""))
        XCTAssertEqual(error("main:a-b"), .malformedEntry("main:a-b"))
        XCTAssertEqual(error("main:0-1"), .channelBelowOne(route: "main"))
        XCTAssertEqual(error("ma in:1"), .invalidName("ma in"))
        XCTAssertEqual(error("main:1,main:2"), .duplicateName("main"))
        XCTAssertEqual(error("main:1-3,click:3-4"), .overlap(first: "main", second: "click", channel: 3))
        XCTAssertEqual(error("main:1-3,click:3-4")?.description,
                       "channel map: device channel 3 is given to both 'main' and 'click'")
    }

    func testTheRouterPlacesEachSourceAtItsDeviceChannels() throws {
        let quad = AudioFormat(sampleRate: 44_100, channelCount: 5)
        let main = ToneGeneratorNode(name: "main", frequency: 441, amplitude: 0.5,
                                     format: AudioFormat(sampleRate: 44_100, channelCount: 2))
        let click = ToneGeneratorNode(name: "click", waveform: .impulse, amplitude: 0.9)
        let engine = try makeOfflineEngine(format: quad, attaching: [])
        let router = try engine.connectRoutes(["main": main, "click": click],
                                              map: ChannelMap(parsing: "click:3-4,main:1-2"))
        XCTAssertEqual(router.bus(forRoute: "main"), 1)
        try engine.start()
        let output = AudioBuffer(format: quad, frameCapacity: 1000)
        try engine.renderOffline(frames: 1000, into: output)

        XCTAssertGreaterThan(rms(output, channel: 0), 0.3)
        XCTAssertEqual(Array(output[0]), Array(output[1]))
        XCTAssertEqual(output[2][0], 0.9, "the mono click goes to both of its channels")
        XCTAssertEqual(output[3][0], 0.9)
        XCTAssertEqual(output[2][1...].max(), 0)
        XCTAssertEqual(output[4].max(), 0, "an unrouted device channel is silent")
        XCTAssertEqual(output[4].min(), 0)
    }

    func testRoutingNeedsADeviceWideEnoughAndMatchingNames() throws {
        let engine = try makeOfflineEngine(format: .standard, attaching: [])
        let tone = ToneGeneratorNode()
        XCTAssertThrowsError(try engine.connectRoutes(["main": tone], map: ChannelMap(parsing: "main:3-4"))) { error in
            XCTAssertEqual(error as? ChannelMapError, .deviceTooSmall(route: "main", deviceChannelCount: 2))
        }
        XCTAssertThrowsError(try engine.connectRoutes(["mian": tone], map: ChannelMap(parsing: "main:1-2"))) { error in
            XCTAssertEqual("\(error)", "channel map: 'mian' has no match; the graph outputs are 'main'")
        }
    }

    func testASourceWithAnotherChannelCountThanItsRouteFailsAtStartSuggestingAConverter() throws {
        let engine = try makeOfflineEngine(format: AudioFormat(sampleRate: 44_100, channelCount: 4), attaching: [])
        let threeChannels = ToneGeneratorNode(name: "three", format: AudioFormat(sampleRate: 44_100, channelCount: 3))
        try engine.connectRoutes(["main": threeChannels], map: ChannelMap(parsing: "main:1-2"))
        XCTAssertThrowsError(try engine.start()) { error in
            XCTAssertEqual(error as? AudioEngineError, .formatMismatch(
                connection: "'three' bus 0 → 'output router' bus 0", sourceFormat: threeChannels.format, expected: nil))
            XCTAssertTrue("\(error)".contains("ConverterNode"))
        }
    }
}
