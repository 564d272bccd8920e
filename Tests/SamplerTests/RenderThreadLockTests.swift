import AudioGraph
import CFluidSynth
import Sampler
import Foundation
import LockCounter
import MIDICore
import RenderTestSupport
import XCTest

/// The render thread takes no lock: MIDI from the sampler's event source and control changes made on
/// other threads reach FluidSynth without its API mutex (or any other lock) on the render thread.
final class RenderThreadLockTests: XCTestCase {
    /// The counter sees a lock FluidSynth takes inside the library: a raw synth with FluidSynth's default
    /// thread-safe API takes its mutex for a note-on.
    func testCounterSeesFluidSynthsAPIMutex() throws {
        let settings = try XCTUnwrap(new_fluid_settings())
        defer { delete_fluid_settings(settings) }
        let synth = try XCTUnwrap(new_fluid_synth(settings))
        defer { delete_fluid_synth(synth) }
        seqplay_lock_count_begin()
        fluid_synth_noteon(synth, 0, 60, 100)
        let locks = seqplay_lock_count_end()
        XCTAssertGreaterThan(locks, 0)
    }

    /// Rendering scheduled notes, with reverb and chorus, while another thread keeps changing programs,
    /// gain, effects and sending notes-off: no lock call on the render thread, and the changes arrive.
    func testRenderingTakesNoLockWhileAnotherThreadControlsTheSampler() throws {
        let (engine, sampler) = try SamplerNodeTests.makeEngine(font: SamplerNodeTests.timGM, maximumFrameCount: 256, effects: true)
        var events: [(sampleTime: Int64, message: MIDIMessage)] = []
        for i in 0..<200 {
            let time = Int64(i * 997)
            events.append((time, .noteOn(channel: UInt8(i % 16), note: UInt8(40 + i % 40), velocity: 100)))
            events.append((time + 3000, .noteOff(channel: UInt8(i % 16), note: UInt8(40 + i % 40), velocity: 0)))
        }
        sampler.eventSource = ScheduledEventList(events)
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 256) }

        let controlling = ManagedFlag()
        let control = Thread {
            var step = 0
            while !controlling.isDone {
                try? sampler.selectProgram(UInt8(step % 100), channel: UInt8(step % 15))
                sampler.gain = 0.2 + Float(step % 3) * 0.05
                sampler.reverbEnabled = step % 2 == 0
                if step % 50 == 0 { sampler.allNotesOff() }
                step += 1
                usleep(200)
            }
        }
        control.start()
        seqplay_lock_count_begin()
        let peak = SamplerNodeTests.blockStartPeak(rendering: engine, frames: 200_000)
        let locks = seqplay_lock_count_end()
        controlling.finish()
        XCTAssertEqual(locks, 0, "lock calls on the render thread")
        XCTAssertGreaterThan(peak, 0.001, "notes sounded")
        XCTAssertNotNil(sampler.program(onChannel: 0))
    }

    /// A font loading on another thread never holds the render thread up: cycles during the load play
    /// silence at once.
    func testLoadingAFontWhileRenderingDoesNotBlockTheRenderThread() throws {
        let font = SamplerNodeTests.timGM
        for path in [font, SamplerNodeTests.fluidR3] where !FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("\(path) is not installed")
        }
        let (engine, sampler) = try SamplerNodeTests.makeEngine(font: font, maximumFrameCount: 256)
        let loaded = ManagedFlag()
        let loader = Thread {
            _ = try? sampler.loadSoundFont(at: SamplerNodeTests.fluidR3)
            loaded.finish()
        }
        sampler.receive(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 100))
        loader.start()
        var slowest: TimeInterval = 0
        var blocks = 0
        let loadStart = Date()
        while !loaded.isDone && blocks < 100_000 {
            let start = Date()
            _ = engine.renderBlock(frameCount: 256)
            slowest = max(slowest, Date().timeIntervalSince(start))
            blocks += 1
        }
        let loadSeconds = Date().timeIntervalSince(loadStart)
        XCTAssertTrue(loaded.isDone)
        print("font load: \(String(format: "%.0f", loadSeconds * 1000)) ms, \(blocks) blocks rendered meanwhile, "
              + "slowest \(String(format: "%.2f", slowest * 1000)) ms")
        // A render that waited for the load would take about as long as the load (FluidR3: ~1 s); the
        // bound leaves room for a busy machine's scheduling.
        XCTAssertLessThan(slowest, loadSeconds / 4, "slowest block while the font loaded")
        XCTAssertGreaterThan(blocks, 10)
    }
}

/// A flag one thread sets and another polls.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    var isDone: Bool { lock.lock(); defer { lock.unlock() }; return done }
    func finish() { lock.lock(); done = true; lock.unlock() }
}
