import AudioGraph
import XCTest

/// Start errors: each names the node or connection at fault.
final class GraphValidationTests: XCTestCase {
    private func startError(_ engine: AudioEngine) -> AudioEngineError? {
        do {
            try engine.start()
            return nil
        } catch {
            return error
        }
    }

    func testAnUnconnectedInputNamesTheNodeAndBus() throws {
        let splitter = SplitterNode(name: "split", outputCount: 1)
        let engine = try makeOfflineEngine(attaching: [splitter])
        engine.connect(splitter, to: engine.mainMixerNode)
        let error = startError(engine)
        XCTAssertEqual(error, .unconnectedInput(node: "split", bus: 0))
        XCTAssertEqual(error?.description, "input bus 0 of node 'split' is not connected")
        XCTAssertFalse(engine.isRunning)
    }

    func testAnEngineWithNothingConnectedToItsOutputNamesTheOutput() {
        XCTAssertEqual(startError(AudioEngine()), .unconnectedInput(node: "output", bus: 0))
    }

    func testACycleNamesItsNodesInSignalOrder() throws {
        let tone = ToneGeneratorNode(name: "tone")
        let a = MixerNode(name: "a"), b = SplitterNode(name: "b", outputCount: 2), c = SplitterNode(name: "c", outputCount: 1)
        let engine = try makeOfflineEngine(attaching: [tone, a, b, c])
        engine.connect([tone, a, b, engine.mainMixerNode])
        engine.connect(b, to: c, fromBus: 1)
        engine.connect(c, to: a)
        let error = startError(engine)
        // The output pulls from b first, so the loop is reported from b.
        XCTAssertEqual(error, .cycle(nodes: ["b", "c", "a"]))
        XCTAssertEqual(error?.description, "the connections form a cycle: 'b' → 'c' → 'a' → 'b'")
    }

    func testAnExplicitFormatWithOtherChannelsSuggestsAConverter() throws {
        let tone = ToneGeneratorNode(name: "tone", format: AudioFormat(sampleRate: 44_100, channelCount: 3))
        let engine = try makeOfflineEngine(attaching: [tone])
        let wanted = AudioFormat(sampleRate: 44_100, channelCount: 2)
        engine.connect(tone, to: engine.mainMixerNode, format: wanted)
        let error = startError(engine)
        XCTAssertEqual(error, .formatMismatch(connection: "'tone' bus 0 → 'main mixer' bus 0",
                                              sourceFormat: tone.format, expected: wanted))
        XCTAssertEqual(error?.description, "format mismatch on 'tone' bus 0 → 'main mixer' bus 0: the source produces "
            + "44100 Hz, 3 ch but 44100 Hz, 2 ch is expected; "
            + "insert a ConverterNode between them to change the channel count or order")
    }

    func testAnExplicitFormatAtAnotherSampleRateSaysTheEngineRunsAtOneRate() throws {
        let tone = ToneGeneratorNode(name: "tone", format: AudioFormat(sampleRate: 48_000, channelCount: 1))
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode, format: AudioFormat(sampleRate: 44_100, channelCount: 1))
        XCTAssertEqual(startError(engine)?.description, "format mismatch on 'tone' bus 0 → 'main mixer' bus 0: the source "
            + "produces 48000 Hz, 1 ch but 44100 Hz, 1 ch is expected; "
            + "an engine runs at one sample rate: make the source produce 44100 Hz, or render the source in an "
            + "engine of its own at its rate and bring that engine in through a SampleRateConverterNode (module Effects)")
    }

    func testAFormatTheDestinationCannotTakeSuggestsAConverter() throws {
        let tone = ToneGeneratorNode(name: "tone", format: AudioFormat(sampleRate: 44_100, channelCount: 3))
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        let error = startError(engine)
        XCTAssertEqual(error, .formatMismatch(connection: "'tone' bus 0 → 'main mixer' bus 0",
                                              sourceFormat: tone.format, expected: nil))
        XCTAssertTrue(error?.description.contains("insert a ConverterNode") == true)
    }

    func testARateTheMixerCannotTakeSuggestsASampleRateConverterNode() throws {
        let tone = ToneGeneratorNode(name: "tone", format: AudioFormat(sampleRate: 48_000, channelCount: 2))
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        XCTAssertTrue(startError(engine)?.description.contains("through a SampleRateConverterNode (module Effects)") == true)
    }

    func testTheOutputNodeTakesOnlyItsOwnFormat() throws {
        let tone = ToneGeneratorNode(name: "tone")
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.outputNode)
        XCTAssertEqual(startError(engine), .formatMismatch(connection: "'tone' bus 0 → 'output' bus 0",
                                                           sourceFormat: tone.format, expected: nil))
    }

    func testOneOutputFeedingTwoInputsSuggestsASplitter() throws {
        let tone = ToneGeneratorNode(name: "tone")
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode, toBus: 0)
        engine.connect(tone, to: engine.mainMixerNode, toBus: 1)
        let error = startError(engine)
        XCTAssertEqual(error, .outputConnectedToSeveralInputs(connections: [
            "'tone' bus 0 → 'main mixer' bus 0", "'tone' bus 0 → 'main mixer' bus 1"]))
        XCTAssertTrue(error?.description.contains("SplitterNode") == true)
    }

    func testAnUnattachedNodeIsNamed() {
        let engine = AudioEngine()
        engine.connect(ToneGeneratorNode(name: "stray"), to: engine.mainMixerNode)
        XCTAssertEqual(startError(engine), .nodeNotAttached(node: "stray"))
    }

    func testABusTheNodeDoesNotHaveIsNamed() throws {
        let tone = ToneGeneratorNode(name: "tone")
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode, fromBus: 1)
        XCTAssertEqual(startError(engine), .busOutOfRange(node: "tone", bus: 1, isInput: false, busCount: 1))
    }

    func testATapOnAMissingBusIsNamed() throws {
        let tone = ToneGeneratorNode(name: "tone")
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        engine.mainMixerNode.installTap(GainTap(gain: 1), at: .input(bus: 3))
        XCTAssertEqual(startError(engine), .busOutOfRange(node: "main mixer", bus: 3, isInput: true,
                                                          busCount: MixerNode.maximumInputCount))
    }

    func testAttachingMakesNamesUniqueAndConnectReplacesTheInput() throws {
        let first = ToneGeneratorNode(), second = ToneGeneratorNode()
        let engine = AudioEngine()
        engine.attach(first)
        engine.attach(second)
        XCTAssertEqual(first.name, "ToneGeneratorNode")
        XCTAssertEqual(second.name, "ToneGeneratorNode 2")

        engine.connect(first, to: engine.mainMixerNode, toBus: 0)
        engine.connect(second, to: engine.mainMixerNode, toBus: 0)
        XCTAssertEqual(engine.connections.filter { $0.destination === engine.mainMixerNode }.map(\.source.name),
                       ["ToneGeneratorNode 2"])
        XCTAssertEqual(engine.nextFreeInputBus(of: engine.mainMixerNode), 1)
        engine.detach(second)
        XCTAssertNil(second.engine)
        XCTAssertEqual(engine.nextFreeInputBus(of: engine.mainMixerNode), 0)
    }

    func testNodesNotInTheSignalPathAreNotRendered() throws {
        let tone = ToneGeneratorNode(name: "tone"), idle = SplitterNode(name: "idle", outputCount: 1)
        let engine = try makeOfflineEngine(attaching: [tone, idle])
        engine.connect(tone, to: engine.mainMixerNode)
        XCTAssertNil(startError(engine), "an attached node off the path does not need its input connected")
    }

    func testGraphChangesWhileRunningNeedARestartAndPrepareRefuses() throws {
        let tone = ToneGeneratorNode()
        let engine = try makeOfflineEngine(attaching: [tone])
        engine.connect(tone, to: engine.mainMixerNode)
        try engine.start()
        XCTAssertThrowsError(try engine.prepare()) { XCTAssertEqual($0 as? AudioEngineError, .engineRunning) }
        XCTAssertThrowsError(try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: 64)) {
            XCTAssertEqual($0 as? AudioEngineError, .engineRunning)
        }
    }

    func testANodeThatRefusesToPrepareIsNamed() throws {
        let engine = try makeOfflineEngine(attaching: [RefusingNode(name: "picky")])
        engine.connect(engine.attachedNodes.last!, to: engine.mainMixerNode)
        XCTAssertEqual(startError(engine), .preparationFailed(node: "picky", reason: "no thanks"))
    }
}

private struct Refusal: Error, CustomStringConvertible {
    var description: String { "no thanks" }
}

/// A source whose prepare always throws.
private final class RefusingNode: AudioNode, @unchecked Sendable {
    override var numberOfInputs: Int { 0 }
    override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { .standard }
    override func prepare(_ setup: AudioNodeRenderSetup) throws { throw Refusal() }
}
