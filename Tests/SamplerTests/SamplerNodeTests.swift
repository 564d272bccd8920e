import AllocationCounter
import AudioGraph
import AudioTestSupport
import Sampler
import Foundation
import MIDICore
import RenderTestSupport
import XCTest

final class SamplerNodeTests: XCTestCase {
    static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    static let timGM = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    /// A running offline engine: a dry sampler with `font` loaded → main mixer → output.
    func makeEngine(font: String, sampleRate: Double = 48_000, maximumFrameCount: Int = 512, effects: Bool = false)
        throws -> (AudioEngine, SamplerNode) {
        try Self.makeEngine(font: font, sampleRate: sampleRate, maximumFrameCount: maximumFrameCount, effects: effects)
    }

    static func makeEngine(font: String, sampleRate: Double = 48_000, maximumFrameCount: Int = 512, effects: Bool = false)
        throws -> (AudioEngine, SamplerNode) {
        guard FileManager.default.fileExists(atPath: font) else { throw XCTSkip("\(font) is not installed") }
        let sampler = try SamplerNode(settings: SamplerSettings(reverb: .init(isEnabled: effects), chorus: .init(isEnabled: effects)))
        try sampler.loadSoundFont(at: font)
        let engine = AudioEngine()
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode)
        try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: sampleRate, channelCount: 2),
                                             maximumFrameCount: maximumFrameCount)
        try engine.start()
        return (engine, sampler)
    }

    /// Renders `frames` frames in 256-frame blocks (allocating nothing itself): the largest magnitude of a
    /// block's first left sample, to show notes sounded.
    static func blockStartPeak(rendering engine: AudioEngine, frames: Int) -> Float {
        var peak: Float = 0
        for _ in 0..<(frames / 256) {
            guard let block = engine.renderBlock(frameCount: 256) else { break }
            peak = max(peak, abs(block[0][0]))
        }
        return peak
    }

    func render(_ engine: AudioEngine, frames: Int) throws -> [Float] {
        let buffer = AudioBuffer(format: engine.outputFormat, frameCapacity: frames)
        try engine.renderOffline(frames: frames, into: buffer)
        return Array(buffer[0])
    }

    func testPianoA4Is440HzThroughTheGraphAtTheEngineRate() throws {
        let (engine, sampler) = try makeEngine(font: Self.fluidR3, sampleRate: 48_000)
        XCTAssertEqual(sampler.sampleRate, 48_000)
        sampler.receive(.noteOn(channel: 0, note: 69, velocity: 100))
        let audio = try render(engine, frames: 72_000)
        let frequency = ToneAnalysis.dominantFrequency(of: audio[14_400..<62_400], sampleRate: 48_000,
                                                       lowest: 380, highest: 500)
        XCTAssertEqual(frequency, 440, accuracy: 1, "measured \(frequency) Hz")
        XCTAssertGreaterThan(sampler.activeVoiceCount, 0)
    }

    /// Renders one note scheduled at `sampleTime` through an engine pulling `cycleFrames` per cycle
    /// and returns the first sample index whose magnitude reaches `threshold`.
    func onset(ofNoteAt sampleTime: Int64, cycleFrames: Int, announced: Bool = false, threshold: Float = 0.005) throws -> Int? {
        let (engine, sampler) = try makeEngine(font: Self.timGM, maximumFrameCount: cycleFrames)
        try sampler.selectProgram(0)
        sampler.eventSource = ScheduledEventList([(sampleTime, .noteOn(channel: 0, note: 60, velocity: 110))],
                                                 announcesNextEvent: announced)
        let audio = try render(engine, frames: Int(sampleTime) + 8192)
        return ToneAnalysis.onset(of: audio[...], threshold: threshold)
    }

    func testScheduledEventsLandOnTheNearest64SampleBoundary() throws {
        let latency = try XCTUnwrap(try onset(ofNoteAt: 0, cycleFrames: 512), "the note at 0 sounded")
        for (time, cycleFrames) in [(Int64(9_000), 512), (9_031, 100), (9_032, 100), (9_033, 333),
                                    (12_345, 512), (20_000 + 63, 1), (40, 4096), (95, 4096)] {
            for announced in [false, true] {
                let expectedBlock = (time + 32) / 64 * 64
                let measured = try XCTUnwrap(try onset(ofNoteAt: time, cycleFrames: cycleFrames, announced: announced))
                let landed = Int64(measured - latency)
                XCTAssertEqual(landed, expectedBlock, "note at \(time), cycles of \(cycleFrames), announced: \(announced)")
                XCTAssertLessThanOrEqual(abs(landed - time), 32, "note scheduled at \(time)")
            }
        }
    }

    /// A source that says when its next event is gets asked only at the boundaries where one is due
    /// (and at the start of each engine cycle); the blocks between render in one FluidSynth call.
    func testAnAnnouncedScheduleIsAskedOnlyWhereEventsAreDue() throws {
        let (engine, sampler) = try makeEngine(font: Self.timGM, maximumFrameCount: 512)
        let source = ScheduledEventList([(1_000, .noteOn(channel: 0, note: 60, velocity: 100)),
                                         (5_000, .noteOff(channel: 0, note: 60, velocity: 0))],
                                        announcesNextEvent: true)
        sampler.eventSource = source
        _ = try render(engine, frames: 8_192)
        let cycleStarts = stride(from: Int64(0), to: 8_192, by: 512).map { $0 + 32 }
        XCTAssertEqual(source.deadlines, Set(cycleStarts + [1_024 + 32, 4_992 + 32]).sorted())
    }

    /// Rendering up to the next event in one call sounds exactly like rendering block by block.
    func testRenderingUpToTheNextEventSoundsTheSameAsBlockByBlock() throws {
        var events: [(sampleTime: Int64, message: MIDIMessage)] = [(0, .programChange(channel: 1, program: 48))]
        for i in 0..<60 {
            let time = Int64(300 + i * 1_733)
            events.append((time, .noteOn(channel: UInt8(i % 2), note: UInt8(48 + i % 24), velocity: 90)))
            events.append((time + 5_000, .noteOff(channel: UInt8(i % 2), note: UInt8(48 + i % 24), velocity: 0)))
            events.append((time + 77, .pitchBend(channel: 1, value: UInt16(8192 + (i % 5) * 300))))
        }
        var renders: [[Float]] = []
        for announced in [false, true] {
            let (engine, sampler) = try makeEngine(font: Self.timGM, maximumFrameCount: 1_000, effects: true)
            sampler.eventSource = ScheduledEventList(events, announcesNextEvent: announced)
            renders.append(try render(engine, frames: 120_000))
        }
        XCTAssertGreaterThan(ToneAnalysis.peak(of: renders[0][...]), 0.05)
        XCTAssertEqual(renders[0], renders[1])
    }

    func testEventSourceIsAskedOncePerBlockWithHalfABlockOfLookahead() throws {
        let (engine, sampler) = try makeEngine(font: Self.timGM, maximumFrameCount: 100)
        let source = ScheduledEventList([])
        sampler.eventSource = source
        _ = try render(engine, frames: 640)
        XCTAssertEqual(source.deadlines, stride(from: Int64(32), to: 640, by: 64).map { $0 })
    }

    func testEngineResetRealignsBlocksWithSampleTimeZero() throws {
        let (engine, sampler) = try makeEngine(font: Self.timGM, maximumFrameCount: 100)
        _ = try render(engine, frames: 150)
        engine.stop()
        try engine.reset()
        try engine.start()
        let source = ScheduledEventList([])
        sampler.eventSource = source
        _ = try render(engine, frames: 256)
        XCTAssertEqual(source.deadlines, [32, 96, 160, 224])
    }

    func testSilentUntilANoteAndLiveParameters() throws {
        let (engine, sampler) = try makeEngine(font: Self.timGM)
        XCTAssertTrue(sampler.presets.contains { $0.bank == 128 })
        XCTAssertEqual(ToneAnalysis.peak(of: try render(engine, frames: 4096)[...]), 0)
        sampler.gain = 0.4
        sampler.polyphony = 64
        sampler.reverbEnabled = true
        XCTAssertEqual([sampler.gain, Float(sampler.polyphony)], [0.4, 64])
        XCTAssertTrue(sampler.reverbEnabled)
        sampler.receive(.noteOn(channel: 9, note: 38, velocity: 120))
        XCTAssertGreaterThan(ToneAnalysis.peak(of: try render(engine, frames: 4096)[...]), 0.01)
        sampler.allSoundsOff()
        _ = try render(engine, frames: 64)
        XCTAssertEqual(sampler.activeVoiceCount, 0)
    }

    func testRenderingWithScheduledNotesAllocatesNothing() throws {
        try assertRenderingAllocatesNothing(effects: false)
    }

    /// FluidSynth's reverb and chorus run in an OpenMP region every 64 frames; it runs inline
    /// (FluidSynthOpenMP), so libgomp does not allocate a thread team for it on the render thread.
    func testRenderingWithReverbAndChorusAllocatesNothing() throws {
        try assertRenderingAllocatesNothing(effects: true)
        XCTAssertTrue(Synthesizer.runsOpenMPRegionsInline)
    }

    private func assertRenderingAllocatesNothing(effects: Bool) throws {
        let (engine, sampler) = try makeEngine(font: Self.timGM, maximumFrameCount: 256, effects: effects)
        var events: [(sampleTime: Int64, message: MIDIMessage)] = []
        for i in 0..<200 {
            let time = Int64(2048 + i * 997)
            let note = UInt8(40 + i % 40)
            events.append((time, .noteOn(channel: UInt8(i % 16), note: note, velocity: 100)))
            events.append((time + 4000, .noteOff(channel: UInt8(i % 16), note: note, velocity: 0)))
            events.append((time + 10, .controlChange(channel: UInt8(i % 16), controller: 7, value: 100)))
        }
        events.append((50_000, .systemExclusive([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41, 0xF7])))
        sampler.eventSource = ScheduledEventList(events)
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 256) }

        seqplay_alloc_count_begin()
        let peak = Self.blockStartPeak(rendering: engine, frames: 210_000)
        let counts = seqplay_alloc_count_end()
        XCTAssertGreaterThan(peak, 0.001, "notes sounded")
        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(counts.frees, 0)
    }
}
