import AllocationCounter
import AudioGraph
@testable import ControlHTTP
import Sampler
import Foundation
import MIDICore
import RenderTestSupport
import XCTest

/// The web page's meter and notes are watched on the render thread: nothing allocates there, every
/// note arrives, the meter moves, and what is heard is the same sample for sample as without the monitor.
final class SoundMonitorTests: XCTestCase {
    static let events: [(sampleTime: Int64, message: MIDIMessage)] = (0..<120).flatMap { i -> [(Int64, MIDIMessage)] in
        let time = Int64(2048 + i * 997), note = UInt8(40 + i % 40), channel = UInt8(i % 16)
        return [(time, .noteOn(channel: channel, note: note, velocity: 100)), (time + 4000, .noteOff(channel: channel, note: note, velocity: 0))]
    }.sorted { $0.0 < $1.0 }

    /// Renders the events (with or without a monitor) and returns the left channel, the allocation count
    /// while rendering, and the monitor.
    private func render(monitored: Bool) throws -> (audio: [Float], allocations: Int, monitor: SoundMonitor?) {
        let sampler = try SamplerNode(settings: SamplerSettings())
        try sampler.loadSoundFont(at: ServedModule.font)
        let engine = AudioEngine()
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode)
        sampler.eventSource = ScheduledEventList(Self.events)
        let monitor = monitored ? SoundMonitor() : nil
        monitor?.install(on: engine, samplers: [sampler])
        try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 48_000, channelCount: 2), maximumFrameCount: 256)
        try engine.start()
        var audio: [Float] = []
        audio.reserveCapacity(130_000)
        var allocations = 0
        for _ in 0..<(126_000 / 256) {
            seqplay_alloc_count_begin()
            let block = engine.renderBlock(frameCount: 256)
            allocations += Int(seqplay_alloc_count_end().allocations)
            guard let block else { break }
            audio.append(contentsOf: block[0].prefix(256))
        }
        return (audio, allocations, monitor)
    }

    func testWatchingAllocatesNothingMissesNoNoteAndChangesNoSample() throws {
        _ = try render(monitored: true)  // FluidSynth's first-use allocations out of the way
        let watched = try render(monitored: true)
        let plain = try render(monitored: false)
        XCTAssertEqual(watched.allocations, plain.allocations, "the monitor adds no allocation on the render thread")
        XCTAssertEqual(watched.allocations, 0)
        XCTAssertEqual(watched.audio, plain.audio, "what is heard is the same with the monitor")
        XCTAssertGreaterThan(watched.audio.map(abs).max() ?? 0, 0.001, "notes sounded")
        let monitor = try XCTUnwrap(watched.monitor)
        var notes: [SoundMonitor.Note] = []
        while case let taken = monitor.takeNotes(limit: 100), !taken.isEmpty { notes += taken }
        XCTAssertEqual(notes.count, Self.events.count, "every note-on and note-off")
        XCTAssertEqual(notes.first, SoundMonitor.Note(channel: 0, key: 40, velocity: 100))
        XCTAssertEqual(notes.filter { $0.velocity == 0 }.count, Self.events.count / 2)
        let levels = monitor.peakLevels()
        XCTAssertEqual(levels.count, 2)
        XCTAssertGreaterThan(levels.max() ?? -120, -60, "the meter saw the sound")
    }
}
