import CFluidSynth
@testable import Sampler
import Foundation
import MIDICore
import XCTest

/// Control calls on another thread never enter FluidSynth's synth API while the render thread is in
/// a render cycle. With the thread-safe API off, FluidSynth 2.3 still wraps every fluid_synth_* call
/// (getters too) in an API entry and exit that reap finished voices and commit the voice events queued
/// so far; made from a control thread during a cycle, they commit queue slots the render thread has not
/// written yet, and the renderer calls through the null method of an empty slot (the crash this test
/// was written for: SIGSEGV at address 0 on the render thread).
final class ControlThreadTests: XCTestCase {
    /// FluidSynth 2.3.1 keeps its API depth (`public_api_count`) at byte 20 of fluid_synth_t; 0
    /// whenever no thread is inside a fluid_synth_* call.
    static func apiDepth(of synthesizer: Synthesizer) -> Int32 {
        UnsafeRawPointer(synthesizer.synth).load(fromByteOffset: 20, as: Int32.self)
    }

    /// The render thread plays notes in 64-frame cycles while a control thread keeps selecting
    /// programs (found in the font stack, then queued): at the end of every cycle, where the render
    /// thread is in no FluidSynth call, no other thread is either. Before the fix, selectProgram's
    /// font lookup entered the synth's API: most runs saw the depth off in thousands of cycles, some
    /// crashed (a null event method dispatched).
    func testSelectingProgramsWhileRenderingNeverEntersTheSynthsAPI() throws {
        var major: Int32 = 0, minor: Int32 = 0, micro: Int32 = 0
        fluid_version(&major, &minor, &micro)
        guard (major, minor, micro) == (2, 3, 1) else { throw XCTSkip("checks FluidSynth 2.3.1's fluid_synth_t layout") }
        let font = SynthesizerTests.timGM
        guard FileManager.default.fileExists(atPath: font) else { throw XCTSkip("\(font) is not installed") }
        let synth = try Synthesizer(settings: SamplerSettings(reverb: .init(isEnabled: true), chorus: .init(isEnabled: true)))
        try synth.loadSoundFont(at: font)
        XCTAssertEqual(Self.apiDepth(of: synth), 0)

        let controlCalls = ControlCallCounter()
        let control = Thread {
            var step = 0
            while !controlCalls.isStopped {
                try? synth.selectProgram(UInt8(step % 100), bank: step % 7 == 0 ? 128 : 0, channel: UInt8(step % 16))
                controlCalls.increment()
                step += 1
            }
        }
        control.start()
        defer { controlCalls.stop() }

        let left = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { left.deallocate(); right.deallocate() }
        var cycles = 0, cyclesWithAnotherThreadInside = 0
        let deadline = Date().addingTimeInterval(12)
        // At least 20 000 cycles, and until the control thread has made 20 000 calls (a loaded machine
        // may start it late or starve it); at most 12 s. Unloaded: 20 000 cycles in 0.3-8 s.
        while (cycles < 20_000 || controlCalls.count < 20_000) && Date() < deadline {
            guard synth.beginRenderCycle() else { continue }
            for k in 0..<4 {
                synth.receive(.noteOn(channel: UInt8((cycles + k) % 16), note: UInt8(40 + (cycles * 7 + k) % 40), velocity: 100))
                synth.receive(.noteOff(channel: UInt8((cycles + k + 5) % 16), note: UInt8(40 + (cycles * 7 + k + 13) % 40),
                                       velocity: 0))
            }
            synth.render(frameCount: 64, left: left, right: right)
            if Self.apiDepth(of: synth) != 0 { cyclesWithAnotherThreadInside += 1 }
            synth.endRenderCycle()
            cycles += 1
        }
        controlCalls.stop()
        // Two busy loops beside a niced run left the control thread as few as 296 calls in 10 s.
        XCTAssertGreaterThan(controlCalls.count, 100, "control calls made while rendering")
        XCTAssertEqual(cyclesWithAnotherThreadInside, 0, "of \(cycles) render cycles, with \(controlCalls.count) control calls")
    }
}

/// Counts a control thread's calls and tells it when to stop.
private final class ControlCallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    private var stopped = false
    var count: Int { lock.withLock { calls } }
    var isStopped: Bool { lock.withLock { stopped } }
    func increment() { lock.withLock { calls += 1 } }
    func stop() { lock.withLock { stopped = true } }
}
