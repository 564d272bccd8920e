import Atomics
import Foundation
import Sampler

/// Keeps a render's voice budget exactly over its channel groups' synthesizers (each of which may
/// sound the whole budget): a voice is stolen only when the voices sounding in all groups together
/// would exceed the budget, as one synthesizer playing every channel would steal, and the groups
/// take the same decisions on any number of threads.
///
/// Voices start only at note-ons, which a sampler takes at 64-frame block boundaries. The fan-out
/// marks each boundary where some group takes a note-on (`markNoteOn`); every group stops there
/// (`nextBoundary`), in step with the others: when all have rendered up to it (`reached`), each in
/// group order takes its events and settles (`settle`): if its voices and the others' (the earlier
/// groups' after their note-ons there, the later ones' before) exceed the budget, it ends the
/// excess among its own voices (`SamplerNode.endVoices`, the lowest priority first). So the
/// decisions depend on the voice counts alone, never on which thread got where first. Between
/// those boundaries voices only end, so the groups render freely.
///
/// Real-time safe: no allocation or lock after init; a group waiting for another on another thread
/// spins a little, then sleeps on a semaphore of its own (posted when the group it awaits moves, or
/// its render is abandoned), so a thread whose partner is descheduled gives its core away instead of burning it.
final class VoiceLedger {
    /// The most voices sounding at once in the whole render.
    let budget: Int
    private let groupCount: Int
    /// Each group's voices where it last reached a boundary (rendered up to it), and after settling there.
    private let before: UnsafeMutablePointer<Int>
    private let after: UnsafeMutablePointer<Int>
    /// Per group: 2 × t once it has rendered up to boundary t (its `before` set), 2 × t + 1 once it
    /// has settled there (its `after` set).
    private let positions: [ManagedAtomic<Int64>]
    /// Per waiting group: the group whose move it sleeps until (-1: none), and the semaphore it
    /// alone sleeps on (one each, so a waiter woken for nothing can never take another's wake).
    private let awaited: [ManagedAtomic<Int>]
    private let moved: UnsafeMutablePointer<sem_t>
    /// The boundaries marked, by block number (sample time / 64) in a ring: entry n % count holds n when block n is one.
    private let marks: UnsafeMutablePointer<Int64>
    private let markCount: Int

    /// A ledger of `budget` voices for `groups` groups, whose marks may run up to `spanFrames`
    /// ahead of the earliest group still rendering.
    init(budget: Int, groups: Int, spanFrames: Int) {
        self.budget = budget
        groupCount = groups
        before = .allocate(capacity: max(1, groups))
        before.initialize(repeating: 0, count: max(1, groups))
        after = .allocate(capacity: max(1, groups))
        after.initialize(repeating: 0, count: max(1, groups))
        positions = (0..<groups).map { _ in ManagedAtomic(Int64(0)) }
        awaited = (0..<groups).map { _ in ManagedAtomic(-1) }
        moved = .allocate(capacity: max(1, groups))
        for group in 0..<groups { sem_init(moved + group, 0, 0) }
        markCount = spanFrames / SamplerNode.blockFrames + 8
        marks = .allocate(capacity: markCount)
        marks.initialize(repeating: -1, count: markCount)
    }

    /// A ledger for groups rendered ahead in ranges of `rangeFrames` (`GroupRenderAhead`).
    convenience init(budget: Int, groups: Int, rangesOf rangeFrames: Int) {
        self.init(budget: budget, groups: groups,
                  spanFrames: (GroupRenderAhead.depth(groups: groups, rangeFrames: rangeFrames) + 2) * rangeFrames)
    }

    deinit {
        for group in 0..<groupCount { sem_destroy(moved + group) }
        moved.deallocate()
        before.deallocate()
        after.deallocate()
        marks.deallocate()
    }

    private static let blockFrames = Int64(SamplerNode.blockFrames)

    // MARK: Marks (the thread pulling the events)

    /// Marks the boundary where a sampler takes a note-on due at `sampleTime`: the first block
    /// boundary B with `sampleTime` < B + 32 (`SamplerNode`).
    func markNoteOn(dueAt sampleTime: Int64) {
        let time = max(sampleTime, Int64.min / 4) - Self.blockFrames / 2
        let block = (time >= 0 ? time / Self.blockFrames : (time + 1) / Self.blockFrames - 1) + 1
        marks[Int(block.magnitude % UInt64(markCount))] = block
    }

    /// Forgets every mark and starts the groups at `sampleTime` with the voices they sound now
    /// (after a seek or a restart of the ranges). Only while no group renders.
    func restart(at sampleTime: Int64, voices: (Int) -> Int) {
        marks.update(repeating: -1, count: markCount)
        for group in 0..<groupCount {
            before[group] = voices(group)
            after[group] = before[group]
            positions[group].store(2 * sampleTime, ordering: .sequentiallyConsistent)
        }
        // Posts no waiter took (it found the group moved first): none may wake a later wait early for nothing.
        for group in 0..<groupCount { while sem_trywait(moved + group) == 0 {} }
    }

    // MARK: The groups' renderers

    /// Whether the block starting at `sampleTime` is a marked boundary.
    func isBoundary(_ sampleTime: Int64) -> Bool {
        guard sampleTime % Self.blockFrames == 0 else { return false }
        let block = sampleTime / Self.blockFrames
        return marks[Int(block.magnitude % UInt64(markCount))] == block
    }

    /// The first marked boundary after `sampleTime` and before `end`, else `end`.
    func nextBoundary(after sampleTime: Int64, before end: Int64) -> Int64 {
        var boundary = (sampleTime / Self.blockFrames + 1) * Self.blockFrames
        while boundary < end {
            if isBoundary(boundary) { return boundary }
            boundary += Self.blockFrames
        }
        return end
    }

    /// Group `group` has rendered up to the boundary `sampleTime`, where it sounds `voices`.
    func reached(group: Int, at sampleTime: Int64, voices: Int) {
        before[group] = voices
        move(group, to: 2 * sampleTime)
    }

    /// Publishes group `group`'s position and wakes whoever sleeps until it moves.
    private func move(_ group: Int, to position: Int64) {
        positions[group].store(position, ordering: .sequentiallyConsistent)
        for waiter in 0..<groupCount where awaited[waiter].load(ordering: .sequentiallyConsistent) == group {
            sem_post(moved + waiter)
        }
    }

    /// Waits (as group `waiter`) until group `group` has reached `position`; false when `abandon`
    /// said to stop waiting. Spins first (the other thread is usually a block away), then sleeps on
    /// the waiter's own semaphore until the group moves or whoever makes `abandon` true calls
    /// `wakeWaiters()`. A waiter says which group it awaits before it looks again (at the position
    /// and at `abandon`, which must read its flags sequentially consistent), and a mover or an
    /// abandoner stores before it looks who waits (both sequentially consistent), so no wake is
    /// lost; a post left over from an earlier wait only makes one look more.
    private func wait(as waiter: Int, for group: Int, to position: Int64, abandon: () -> Bool) -> Bool {
        var spins = 0
        while positions[group].load(ordering: .acquiring) < position {
            if abandon() { return false }
            spins += 1
            if spins < 200 { continue }
            awaited[waiter].store(group, ordering: .sequentiallyConsistent)
            if positions[group].load(ordering: .sequentiallyConsistent) < position && !abandon() {
                _ = sem_wait(moved + waiter)  // interrupted or woken: the loop looks again
            }
            awaited[waiter].store(-1, ordering: .sequentiallyConsistent)
        }
        return true
    }

    /// Wakes every sleeping waiter so it asks its `abandon` again: called by whoever made it true
    /// (sequentially consistent), after doing so. No allocation, no lock.
    func wakeWaiters() {
        for waiter in 0..<groupCount where awaited[waiter].load(ordering: .sequentiallyConsistent) >= 0 {
            sem_post(moved + waiter)
        }
    }

    /// At the boundary `sampleTime` (which every group reaches): waits until the groups before
    /// `group` have settled there and the groups after it have reached it, then has `sampler` take
    /// its events and ends the voices that would take the render past its budget. `abandon` ends
    /// the wait when the render it belongs to is dropped (a seek, a stop). Returns the voices it ended.
    @discardableResult
    func settle(group: Int, at sampleTime: Int64, sampler: SamplerNode, abandon: () -> Bool = { false }) -> Int {
        var others = 0
        for other in 0..<groupCount where other != group {
            let target = 2 * sampleTime + (other < group ? 1 : 0)
            guard wait(as: group, for: other, to: target, abandon: abandon) else { return 0 }
            others += other < group ? after[other] : before[other]
        }
        var voices = sampler.takeEvents(at: sampleTime)
        var ended = 0
        if voices + others > budget { ended = sampler.endVoices(voices + others - budget) }
        voices -= ended
        after[group] = voices
        move(group, to: 2 * sampleTime + 1)
        return ended
    }

    /// Renders the groups `groups` of `samplers` (their indices, in order) from `start` to `end`,
    /// in step with every other group: segment by segment between marked boundaries, reaching and
    /// settling at each. `output(g)` is where group g's frames from `start` go; `abandon` as `settle`'s.
    func render(_ samplers: [SamplerNode], groups: StrideTo<Int>, from start: Int64, to end: Int64,
                abandon: () -> Bool = { false },
                output: (Int) -> (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)) {
        var time = start
        while time < end {
            if isBoundary(time) {
                for group in groups { reached(group: group, at: time, voices: samplers[group].activeVoiceCount) }
                for group in groups { settle(group: group, at: time, sampler: samplers[group], abandon: abandon) }
            }
            let next = nextBoundary(after: time, before: end)
            let offset = Int(time - start)
            for group in groups {
                let (left, right) = output(group)
                samplers[group].render(sampleTime: time, frameCount: Int(next - time), left: left + offset, right: right + offset)
            }
            time = next
        }
    }
}
