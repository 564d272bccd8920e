import Atomics
import SeqplaySupport

/// What each of a synthesizer's 16 channels plays (font, bank, program) and its volume (CC 7) and
/// pan (CC 10), as the render thread last set them: written lock-free and without allocating by
/// the render thread (program changes, controllers, resets, fonts loaded), read by any thread. A
/// control model polls `generation` to see that something changed, and waits on `waitForCycles`
/// for the render thread to apply a command.
public final class ChannelStatusTable: Sendable {
    /// One channel's published state.
    public struct Channel: Hashable, Sendable {
        /// FluidSynth's id of the font the preset comes from (nil: the channel has no preset).
        public var font: Int?
        public var bank: Int
        public var program: Int
        /// CC 7, 0...127.
        public var volume: Int
        /// CC 10, 0...127 (64 centre).
        public var pan: Int
    }

    // Bits: 0-7 program, 8-23 bank, 24-39 font id, 40 preset known.
    private let programs: [ManagedAtomic<UInt64>]
    // Bits: 0-7 volume, 8-15 pan.
    private let controllers: [ManagedAtomic<UInt64>]
    private let counter = ManagedAtomic<UInt64>(0)
    private let cycles = ManagedAtomic<UInt64>(0)
    /// Threads in `waitForCycles`, and the semaphore the render thread posts for them at each cycle's end.
    private let cycleWaiters = ManagedAtomic<Int>(0)
    private let cycleEnded = PostedSemaphore()

    init() {
        programs = (0..<16).map { _ in ManagedAtomic<UInt64>(0) }
        controllers = (0..<16).map { _ in ManagedAtomic<UInt64>(100 | 64 << 8) }
    }

    /// Grows by one at every change; compare with a value read before to see whether anything changed.
    public var generation: UInt64 { counter.load(ordering: .acquiring) }

    /// How many render cycles have ended: one that ends after a command was queued has applied it, so
    /// a control thread waits for two (the cycle running when it queued may have drained the queue
    /// before the command arrived).
    public var completedCycles: UInt64 { cycles.load(ordering: .acquiring) }

    /// The render thread ended a cycle: counts it and, only while a thread waits for cycles, posts
    /// the semaphore (a futex wake; no lock, no allocation).
    func cycleCompleted() {
        cycles.wrappingIncrement(ordering: .sequentiallyConsistent)
        if cycleWaiters.load(ordering: .sequentiallyConsistent) > 0 { cycleEnded.post() }
    }

    /// Waits until `count` cycles have ended since `completedCycles` read `start`, or until the
    /// monotonic time `deadline` (ns); returns whether they did. Woken by the render thread at each
    /// cycle's end: a waiter counts itself in before it looks, the render thread counts the cycle
    /// before it counts the waiters (both sequentially consistent), so no wake is lost; a post left
    /// from an earlier wait only makes one look more.
    public func waitForCycles(_ count: UInt64, after start: UInt64, deadline: UInt64) -> Bool {
        cycleWaiters.wrappingIncrement(ordering: .sequentiallyConsistent)
        defer { cycleWaiters.wrappingDecrement(ordering: .sequentiallyConsistent) }
        while cycles.load(ordering: .sequentiallyConsistent) &- start < count {
            guard MonotonicClock.now() < deadline else { return false }
            cycleEnded.wait(until: deadline)
        }
        return true
    }

    /// Channel `channel` (0-based, 0...15).
    public subscript(channel: Int) -> Channel {
        let packed = programs[channel & 15].load(ordering: .relaxed)
        let cc = controllers[channel & 15].load(ordering: .relaxed)
        return Channel(font: packed & 1 << 40 == 0 ? nil : Int(packed >> 24 & 0xFFFF), bank: Int(packed >> 8 & 0xFFFF),
                       program: Int(packed & 0xFF), volume: Int(cc & 0xFF), pan: Int(cc >> 8 & 0xFF))
    }

    func setProgram(channel: Int, known: Bool, font: Int, bank: Int, program: Int) {
        var packed = UInt64(truncatingIfNeeded: program) & 0xFF
        packed |= (UInt64(truncatingIfNeeded: bank) & 0xFFFF) << 8
        packed |= (UInt64(truncatingIfNeeded: font) & 0xFFFF) << 24
        if known { packed |= 1 << 40 }
        programs[channel & 15].store(packed, ordering: .relaxed)
        counter.wrappingIncrement(ordering: .releasing)
    }

    func setController(channel: Int, volume: Int, pan: Int) {
        controllers[channel & 15].store(UInt64(volume & 0xFF) | UInt64(pan & 0xFF) << 8, ordering: .relaxed)
        counter.wrappingIncrement(ordering: .releasing)
    }

    func setController(channel: Int, cc: UInt8, value: Int) {
        let old = controllers[channel & 15].load(ordering: .relaxed)
        let new = cc == 7 ? (old & ~0xFF) | UInt64(value & 0xFF) : (old & ~0xFF00) | UInt64(value & 0xFF) << 8
        controllers[channel & 15].store(new, ordering: .relaxed)
        counter.wrappingIncrement(ordering: .releasing)
    }
}
