import AllocationCounter
import AudioGraph
import Effects
import Foundation
import LockCounter
import LV2
import MIDICore
import RenderTestSupport
import Sampler
import XCTest

/// The LV2 module against the installed bundles: what lilv's world says of them, settings checked against
/// it, effect and instrument nodes in a graph, and what the render thread does.
final class LV2PluginTests: XCTestCase {
    func testWorldDescribesInstalledPlugins() throws {
        try TestPlugins.require(TestPlugins.delay, TestPlugins.piano, TestPlugins.limiter, TestPlugins.room)
        let delay = try XCTUnwrap(LV2Plugins.plugin(uri: TestPlugins.delay))
        XCTAssertEqual(delay.kind, .effect)
        XCTAssertEqual(delay.audioInputs.count, 2)
        XCTAssertEqual(delay.audioOutputs.count, 2)
        let mix = try XCTUnwrap(delay.controlInputs.first { $0.symbol == "fx_mix" })
        XCTAssertEqual(mix.minimum, 0)
        XCTAssertEqual(mix.maximum, 1)
        XCTAssertEqual(try XCTUnwrap(mix.defaultValue), 0.33, accuracy: 1e-6)
        let piano = try XCTUnwrap(LV2Plugins.plugin(uri: TestPlugins.piano))
        XCTAssertEqual(piano.kind, .instrument)
        XCTAssertEqual(piano.midiInputs.map(\.symbol), ["event_in"])
        XCTAssertTrue(piano.presets.contains("Concert Piano"))
        XCTAssertNotNil(LV2Plugins.plugin(uri: TestPlugins.limiter)?.latencyPortIndex)
        let room = try XCTUnwrap(LV2Plugins.plugin(uri: TestPlugins.room))
        XCTAssertTrue(room.requiredFeatures.contains("http://lv2plug.in/ns/ext/worker#schedule"))
        XCTAssertTrue(room.isHostable)
        XCTAssertTrue(LV2Plugins.all().contains { $0.uri == TestPlugins.piano })
    }

    func testSettingsNameWhatIsWrongAndTheChoices() throws {
        try TestPlugins.require(TestPlugins.delay, TestPlugins.piano)
        func failure(_ text: String, role: LV2PluginInfo.Kind) -> String {
            do {
                _ = try LV2PluginSettings(parsing: text, role: role)
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertTrue(failure("urn:no-such-plugin", role: .effect).hasPrefix("unknown LV2 plugin 'urn:no-such-plugin'"))
        XCTAssertTrue(failure("\(TestPlugins.delay),nosuch=1", role: .effect).contains("ports: l_delay, r_delay, feedback, fb_tone, fx_mix, output"))
        XCTAssertTrue(failure("\(TestPlugins.delay),fx_mix=2", role: .effect).contains("outside 0.0...1.0"))
        XCTAssertTrue(failure("\(TestPlugins.delay),fx_mix=nan", role: .effect).contains("is not a number"))
        XCTAssertTrue(failure("\(TestPlugins.piano),preset=Nope", role: .instrument).contains("presets: "))
        XCTAssertTrue(failure(TestPlugins.piano, role: .effect).contains("is an instrument, not an effect"))
        XCTAssertTrue(failure(TestPlugins.delay, role: .instrument).contains("is an effect, not an instrument"))
        let settings = try LV2PluginSettings(parsing: "\(TestPlugins.piano),random_detuning=0,preset=Concert Piano", role: .instrument)
        XCTAssertEqual(settings.values.map(\.symbol), ["random_detuning"])
        XCTAssertEqual(settings.preset, "Concert Piano")
    }

    /// A preset by name sets the ports its state holds; values given are applied after it.
    func testPresetThenValues() throws {
        try TestPlugins.require(TestPlugins.leslie)
        for (values, expected) in [([String: Float](), Float(0.75)), (["hi_depth": 0.2], 0.2)] {
            let engine = AudioEngine()
            try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 44_100, channelCount: 2), maximumFrameCount: 256)
            let source = ImpulseNode()
            let leslie = try LV2EffectNode(uri: TestPlugins.leslie, values: values, preset: "Slow")
            engine.attach(source)
            engine.attach(leslie)
            engine.connect([source, leslie, engine.mainMixerNode])
            try engine.start()
            XCTAssertEqual(try XCTUnwrap(leslie.value(for: "hi_depth")), expected, accuracy: 1e-6)
            XCTAssertEqual(try XCTUnwrap(leslie.value(for: "hi_throb")), 0.57, accuracy: 1e-6)
        }
    }

    /// A look-ahead limiter reports its latency at prepare; a mono plugin on a stereo graph runs once per
    /// channel (an impulse on the left comes out on the left only, delayed by the latency).
    func testMonoLatencyPluginOnStereoRunsPerChannelAndReportsLatency() throws {
        try TestPlugins.require(TestPlugins.monoLimiter)
        let engine = AudioEngine()
        try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 48_000, channelCount: 2), maximumFrameCount: 256)
        let source = ImpulseNode()
        let limiter = try LV2EffectNode(uri: TestPlugins.monoLimiter)
        engine.attach(source)
        engine.attach(limiter)
        engine.connect([source, limiter, engine.mainMixerNode])
        try engine.start()
        XCTAssertGreaterThan(limiter.latencyFrames, 0)
        var left: [Float] = [], right: [Float] = []
        for _ in 0..<16 {
            let block = try XCTUnwrap(engine.renderBlock(frameCount: 256))
            left += Array(block[0].prefix(block.frameLength))
            right += Array(block[1].prefix(block.frameLength))
        }
        let peakIndex = try XCTUnwrap(left.indices.max { abs(left[$0]) < abs(left[$1]) })
        XCTAssertEqual(peakIndex, 100 + limiter.latencyFrames)
        XCTAssertEqual(right.map(abs).max(), 0)
    }

    /// A plugin requiring the worker (dragonfly reverb) runs with its work on a thread of its own (real-time
    /// playback's mode): it sounds, and the worker thread ends with the node.
    func testWorkerOnItsOwnThread() throws {
        try TestPlugins.require(TestPlugins.room)
        for mode in [LV2WorkerMode.thread, .synchronous] {
            let engine = AudioEngine()
            try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 48_000, channelCount: 2), maximumFrameCount: 256)
            let source = ImpulseNode()
            let reverb = try LV2EffectNode(uri: TestPlugins.room, values: ["dry_level": 0])
            reverb.workerMode = mode
            engine.attach(source)
            engine.attach(reverb)
            engine.connect([source, reverb, engine.mainMixerNode])
            try engine.start()
            var tail: Float = 0
            for _ in 0..<100 {
                let block = try XCTUnwrap(engine.renderBlock(frameCount: 256))
                for i in 0..<block.frameLength { tail = max(tail, abs(block[1][i])) }
            }
            XCTAssertGreaterThan(tail, 1e-5, "\(mode): the reverb's tail reaches the right channel")
            engine.stop()
        }
    }

    /// An LV2 instrument's output is `defaultGain` times the plugin's own (`gain` 1), on both channels.
    func testInstrumentOutputIsStagedByItsGain() throws {
        try TestPlugins.require(TestPlugins.piano)
        var renders: [[Float]] = []
        for gain in [Float(1), LV2InstrumentNode.defaultGain] {
            let engine = AudioEngine()
            try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 44_100, channelCount: 2), maximumFrameCount: 256)
            let piano = try LV2InstrumentNode(uri: TestPlugins.piano, channels: [0], values: ["random_detuning": 0])
            XCTAssertEqual(piano.gain, LV2InstrumentNode.defaultGain)
            piano.gain = gain
            let events: [(sampleTime: Int64, message: MIDIMessage)] = [(100, .noteOn(channel: 0, note: 60, velocity: 127)),
                                                                       (300, .noteOn(channel: 0, note: 64, velocity: 127))]
            piano.eventSource = ScheduledEventList(events, announcesNextEvent: true)
            engine.attach(piano)
            engine.connect([piano, engine.mainMixerNode])
            try engine.start()
            var samples: [Float] = []
            for _ in 0..<40 {
                let block = try XCTUnwrap(engine.renderBlock(frameCount: 256))
                for channel in 0..<2 { samples += block[channel].prefix(block.frameLength) }
            }
            renders.append(samples)
        }
        XCTAssertGreaterThan(renders[0].map(abs).max() ?? 0, 0.3, "the plugin's own level")
        XCTAssertLessThanOrEqual(maximumDifference(renders[0].map { $0 * LV2InstrumentNode.defaultGain }, renders[1]), 1e-7)
    }

    /// An LV2 instrument fed by a schedule and an LV2 effect after it, while another thread keeps setting
    /// control ports: the render thread neither allocates nor locks (plugins' own calls included; mda Piano,
    /// mda Delay and x42 nodelay, whose latency port is read after every run, make none), and the notes sound.
    func testRenderThreadNeitherAllocatesNorLocksWithLV2InstrumentAndEffect() throws {
        try TestPlugins.require(TestPlugins.piano, TestPlugins.delay, TestPlugins.nodelay)
        let engine = AudioEngine()
        try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 44_100, channelCount: 2), maximumFrameCount: 256)
        let piano = try LV2InstrumentNode(uri: TestPlugins.piano, channels: [0])
        let delay = try LV2EffectNode(uri: TestPlugins.delay, values: ["fx_mix": 0.5])
        let nodelay = try LV2EffectNode(uri: TestPlugins.nodelay, values: ["delay": 300])
        var events: [(sampleTime: Int64, message: MIDIMessage)] = []
        for i in 0..<200 {
            events.append((Int64(i * 997 + 13), .noteOn(channel: 0, note: UInt8(40 + i % 40), velocity: 100)))
            events.append((Int64(i * 997 + 3013), .noteOff(channel: 0, note: UInt8(40 + i % 40), velocity: 0)))
        }
        piano.eventSource = ScheduledEventList(events, announcesNextEvent: true)
        engine.attach(piano)
        engine.attach(delay)
        engine.attach(nodelay)
        engine.connect([piano, delay, nodelay, engine.mainMixerNode])
        try engine.start()
        XCTAssertEqual(nodelay.latencyFrames, 300, "settled before the first block")
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 256) }
        let done = Flag()
        let control = Thread {
            var step = 0
            while !done.isSet {
                delay.setValue(Float(step % 10) / 10, for: "feedback")
                piano.setValue(Float(step % 5) / 5, for: "stereo_width")
                step += 1
                usleep(200)
            }
        }
        control.start()
        var peak: Float = 0
        var frames = 0
        seqplay_lock_count_begin()
        seqplay_alloc_count_begin()
        for _ in 0..<(200_000 / 256) {
            guard let block = engine.renderBlock(frameCount: 256) else { break }
            frames += block.frameLength
            for i in 0..<block.frameLength { peak = max(peak, abs(block[0][i])) }
        }
        let allocations = seqplay_alloc_count_end()
        let locks = seqplay_lock_count_end()
        done.set()
        XCTAssertGreaterThan(peak, 0.01, "notes sounded")
        XCTAssertEqual(frames, 200_000 / 256 * 256)
        XCTAssertEqual(allocations.allocations, 0, "allocations on the render thread")
        XCTAssertEqual(allocations.frees, 0, "frees on the render thread")
        XCTAssertEqual(locks, 0, "lock calls on the render thread")
        XCTAssertEqual(delay.value(for: "fx_mix"), 0.5)
        XCTAssertEqual(nodelay.latencyFrames, 300)
    }
}

/// Silence with one impulse of 0.5 on the left at frame 100.
final class ImpulseNode: AudioNode, @unchecked Sendable {
    override var numberOfInputs: Int { 0 }
    override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        AudioFormat(sampleRate: engine?.outputFormat.sampleRate ?? 48_000, channelCount: 2)
    }
    override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        for channel in 0..<2 { outputs[0][channel].baseAddress!.update(repeating: 0, count: context.frameCount) }
        if (context.sampleTime..<context.sampleTime + Int64(context.frameCount)).contains(100) {
            outputs[0][0][Int(100 - context.sampleTime)] = 0.5
        }
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
