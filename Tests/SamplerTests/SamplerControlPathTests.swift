import AllocationCounter
import AudioGraph
import Sampler
import Foundation
import LockCounter
import MIDICore
import XCTest

/// The control path a sound module's control model uses (`SamplerNode.enqueue`, `setMuted`,
/// `setReverb`, `setChorus`, `selectProgram(font:)`): queued for the render thread, which applies
/// them without a lock or an allocation and publishes what each channel plays (`channelStatus`).
final class SamplerControlPathTests: XCTestCase {
    private func peak(_ engine: AudioEngine, blocks: Int) -> Float {
        var peak: Float = 0
        for _ in 0..<blocks {
            guard let block = engine.renderBlock(frameCount: 256) else { break }
            for frame in 0..<256 { peak = max(peak, abs(block[0][frame])) }
        }
        return peak
    }

    func testQueuedMessagesPlayAndTheirProgramsArePublished() throws {
        let (engine, sampler) = try SamplerNodeTests.makeEngine(font: SamplerNodeTests.timGM, maximumFrameCount: 256)
        sampler.refreshChannelStatus()
        XCTAssertEqual(sampler.channelStatus[9].bank, 128)
        let before = sampler.channelStatus.generation
        sampler.enqueue(.programChange(channel: 2, program: 40))
        sampler.enqueue(.controlChange(channel: 2, controller: 7, value: 77))
        sampler.enqueue(.controlChange(channel: 2, controller: 10, value: 20))
        XCTAssertEqual(sampler.channelStatus.generation, before, "nothing applied before the render thread runs")
        _ = peak(engine, blocks: 1)
        let status = sampler.channelStatus[2]
        XCTAssertEqual(status.program, 40)
        XCTAssertEqual(status.volume, 77)
        XCTAssertEqual(status.pan, 20)
        XCTAssertNotNil(status.font)
        XCTAssertEqual(sampler.program(onChannel: 2)?.program, 40)

        sampler.enqueue(.noteOn(channel: 2, note: 60, velocity: 110))
        XCTAssertGreaterThan(peak(engine, blocks: 20), 0.01, "a queued note-on sounds")
        sampler.enqueue(.noteOff(channel: 2, note: 60, velocity: 0))
        _ = peak(engine, blocks: 400)
        XCTAssertLessThan(peak(engine, blocks: 4), 1e-4, "a queued note-off ends it")
    }

    func testAMutedChannelIsSilentAndTheOthersPlay() throws {
        let (engine, sampler) = try SamplerNodeTests.makeEngine(font: SamplerNodeTests.timGM, maximumFrameCount: 256)
        sampler.setMuted(true, channel: 0)
        sampler.enqueue(.noteOn(channel: 0, note: 60, velocity: 110))
        XCTAssertEqual(peak(engine, blocks: 20), 0, "muted")
        sampler.enqueue(.noteOn(channel: 1, note: 60, velocity: 110))
        XCTAssertGreaterThan(peak(engine, blocks: 20), 0.01, "another channel plays")
        sampler.allSoundsOff()
        _ = peak(engine, blocks: 2)
        sampler.setMuted(false, channel: 0)
        sampler.enqueue(.noteOn(channel: 0, note: 60, velocity: 110))
        XCTAssertGreaterThan(peak(engine, blocks: 20), 0.01, "unmuted")
    }

    func testSelectingAPresetOfAFontById() throws {
        let (engine, sampler) = try SamplerNodeTests.makeEngine(font: SamplerNodeTests.timGM, maximumFrameCount: 256)
        let font = try XCTUnwrap(sampler.soundFonts.first)
        try sampler.selectProgram(19, bank: 0, channel: 4, font: font.id)
        XCTAssertThrowsError(try sampler.selectProgram(19, bank: 0, channel: 4, font: font.id + 1))
        _ = peak(engine, blocks: 1)
        XCTAssertEqual(sampler.channelStatus[4].program, 19)
        XCTAssertEqual(sampler.channelStatus[4].font, font.id)
    }

    /// While another thread drives every call of the control path, the render thread takes no lock
    /// and allocates nothing.
    func testTheControlPathTakesNoLockAndAllocatesNothingOnTheRenderThread() throws {
        let (engine, sampler) = try SamplerNodeTests.makeEngine(font: SamplerNodeTests.timGM, maximumFrameCount: 256, effects: true)
        for _ in 0..<4 { _ = engine.renderBlock(frameCount: 256) }
        let done = ManagedFlag()
        let control = Thread {
            var step = 0
            while !done.isDone {
                let channel = UInt8(step % 16)
                sampler.enqueue(.programChange(channel: channel, program: UInt8(step % 100)))
                sampler.enqueue(.controlChange(channel: channel, controller: 7, value: UInt8(100 + step % 28)))
                sampler.enqueue(.noteOn(channel: channel, note: UInt8(40 + step % 40), velocity: 100))
                sampler.enqueue(.pitchBend(channel: channel, value: UInt16(step * 97 % 16384)))
                sampler.enqueue(.noteOff(channel: channel, note: UInt8(40 + (step + 20) % 40), velocity: 0))
                sampler.setMuted(step % 2 == 0, channel: 15)
                sampler.setReverb(roomSize: Double(step % 10) / 10, level: 0.5)
                sampler.setChorus(voices: 3 + step % 3, depth: 4)
                step += 1
                usleep(300)
            }
        }
        control.start()
        seqplay_lock_count_begin()
        seqplay_alloc_count_begin()
        var peak: Float = 0
        for _ in 0..<(500_000 / 256) {
            guard let block = engine.renderBlock(frameCount: 256) else { break }
            var frame = 0
            while frame < 256 {
                peak = max(peak, abs(block[0][frame]))
                frame += 1
            }
        }
        let allocations = seqplay_alloc_count_end()
        let locks = seqplay_lock_count_end()
        done.finish()
        XCTAssertEqual(locks, 0, "lock calls on the render thread")
        XCTAssertEqual(allocations.allocations, 0, "allocations on the render thread")
        XCTAssertGreaterThan(peak, 0.001, "notes sounded")
    }
}
