import Atomics
import AudioGraph
import Foundation
import Sampler
import SeqplaySupport

/// Channel groups rendered ahead of the mix on helper threads: helper t renders the groups g with
/// g % threads == t, range after range of `rangeFrames` frames, up to `depth` ranges ahead of the
/// range the mix reads, each helper at its own pace. A group busy for a while (a dense passage)
/// only uses up the lead its helper had, instead of holding every thread at a barrier each range,
/// and the thread driving the render (events, mix, effects, the file) works in parallel with them.
/// The groups' output does not depend on the threads: ranges start at the same sample times, and
/// each range renders with the events due in it queued before it starts. No allocation or lock
/// after init: atomics, and semaphores to sleep on.
// Why unchecked: the driving thread's state is its own; helpers share only atomics, semaphores and rings they alone write.
final class GroupRenderAhead: @unchecked Sendable {
    /// The memory all groups may render ahead into: 64 MiB, 95 s of two groups at 44.1 kHz. The
    /// lead absorbs a group being the busier for a long passage (a movement for brass alone); on a
    /// 9-minute orchestral piece two threads rendered 1.54× as fast as `fluidsynth -F` with 1.5 s
    /// of lead, 1.77× with 95 s.
    /// The memory is mapped as it is first used, so a short song takes what it needs.
    static let aheadBytes = 64 << 20

    let rangeFrames: Int
    /// Ranges each group may render ahead of the mix (`aheadBytes` shared by the groups, 16 at least).
    let depth: Int
    /// Each group's ring of `depth` ranges (stereo, a channel after the other in each range).
    private let rings: [UnsafeMutableRawPointer]
    private let ringBytes: Int
    /// `outputs[group][slot]`: a sampler's `outputs` argument for that range slot (range j is slot j % depth).
    private let outputs: [[[AudioBuffer]]]
    private let samplers: [SamplerNode]
    private let router: SongEventRouter
    /// The voice budget the groups share; they render in step from one note-on boundary to the next.
    private let ledger: VoiceLedger
    private let threadCount: Int

    // The driving thread's state.
    private var isStarted = false
    /// Range n starts at sample `origin` + n × `rangeFrames`; `current` is the one the mix reads.
    private var origin: Int64 = 0
    private var current = 0
    /// No range starting at or after this sample is rendered before the mix asks for it.
    var aheadLimit: Int64 = .max

    /// Ranges are counted per epoch (a discard begins the next one), and a count is stored with its
    /// epoch in one atomic word (`Tagged`), so a helper never pairs a count of one epoch with a
    /// range of another. The driving thread's epoch, and how many of its ranges have their events queued:
    private var epoch = 0
    private var publishedCount = 0
    /// `Tagged(epoch, publishedCount)`, for the helpers.
    private let published = ManagedAtomic<Int>(0)
    /// Ranges the mix is done with in this epoch; their slots may be rendered again.
    private let consumed = ManagedAtomic<Int>(0)
    /// `Tagged(epoch, ranges rendered)` of each helper (written by that helper).
    private let rendered: [ManagedAtomic<Int>]
    private let stopping = ManagedAtomic<Bool>(false)
    /// Helper t sleeps on `wake[t]`; the driving thread sleeps on `progress` (posted after each range).
    private let wake: UnsafeMutablePointer<sem_t>
    private let progress: UnsafeMutablePointer<sem_t>
    /// The helper threads, one per `threadCount`.
    private var helpers: [ServiceThread] = []

    /// Calls made on each helper thread (tests count its allocations with them): before it renders
    /// range j, and when it ends.
    struct HelperProbe: Sendable {
        var willRender: @Sendable (_ thread: Int, _ range: Int) -> Void
        var didStop: @Sendable (_ thread: Int) -> Void
    }
    private let probe: HelperProbe?

    /// The ranges `groups` groups may render ahead in ranges of `rangeFrames`: `aheadBytes` shared, 16 at least.
    static func depth(groups: Int, rangeFrames: Int) -> Int {
        max(16, aheadBytes / max(1, groups * rangeFrames * 2 * MemoryLayout<Float>.stride))
    }

    /// Renders `samplers` (fed by `router`'s first queues, within `ledger`'s budget) on `threads` helper
    /// threads into ranges of `rangeFrames` stereo frames in `format`.
    init(samplers: [SamplerNode], router: SongEventRouter, ledger: VoiceLedger, threads: Int, rangeFrames: Int, format: AudioFormat,
         probe: HelperProbe? = nil) {
        self.probe = probe
        self.samplers = samplers
        self.router = router
        self.ledger = ledger
        self.rangeFrames = rangeFrames
        threadCount = threads
        let rangeBytes = rangeFrames * 2 * MemoryLayout<Float>.stride
        let depth = Self.depth(groups: samplers.count, rangeFrames: rangeFrames)
        let ringBytes = depth * rangeBytes
        self.depth = depth
        self.ringBytes = ringBytes
        rings = samplers.map { _ in
            // Anonymous pages: zero, and backed only once written.
            guard let memory = mmap(nil, ringBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                  memory != MAP_FAILED else { fatalError("cannot map \(ringBytes) bytes to render ahead into") }
            return memory
        }
        outputs = rings.map { ring in
            (0..<depth).map { slot in
                let samples = (ring + slot * rangeBytes).assumingMemoryBound(to: Float.self)
                let buffer = AudioBuffer(format: format, frameCapacity: rangeFrames, over: samples)
                buffer.frameLength = rangeFrames
                return [buffer]
            }
        }
        rendered = (0..<threads).map { _ in ManagedAtomic(0) }
        wake = .allocate(capacity: threads)
        for thread in 0..<threads { sem_init(wake + thread, 0, 0) }
        progress = .allocate(capacity: 1)
        sem_init(progress, 0, 0)
        router.waitForRoom = { [unowned self] group in waitForRoom(inQueueOf: group) }
        helpers = (0..<threads).map { _ in ServiceThread() }
        for (thread, helper) in helpers.enumerated() {
            helper.start(name: "seqplay group \(thread)") { [unowned self] in renderAhead(thread: thread) }
        }
    }

    /// Ends the helper threads (waits for them). Call once, before the last reference goes.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        ledger.wakeWaiters()
        for thread in 0..<threadCount { sem_post(wake + thread) }
        for helper in helpers { helper.join() }
        router.waitForRoom = nil
        for thread in 0..<threadCount { sem_destroy(wake + thread) }
        sem_destroy(progress)
        wake.deallocate()
        progress.deallocate()
        for ring in rings { munmap(ring, ringBytes) }
    }

    // MARK: The driving thread

    /// The range slot holding sample `time`, and where `time` is in it, once every group has
    /// rendered that range. Samples are asked in order; any other time starts the ranges again there.
    func rangeSlot(at time: Int64) -> (slot: Int, offset: Int) {
        var offset = time - origin - Int64(current * rangeFrames)
        if !isStarted || !(0..<Int64(rangeFrames)).contains(offset) {
            if isStarted && offset == Int64(rangeFrames) { advance() } else { restart(at: time) }
            offset = time - origin - Int64(current * rangeFrames)
        }
        let rangesBeforeLimit = aheadLimit == .max ? Int.max : Int((aheadLimit - origin + Int64(rangeFrames) - 1) / Int64(rangeFrames))
        publish(through: max(current + 1, min(current + depth, rangesBeforeLimit)))
        for thread in 0..<threadCount {
            while renderedCount(ofHelper: thread) <= current { sem_wait(progress) }
        }
        return (current % depth, Int(offset))
    }

    /// Group `group`'s output in range slot `slot` (`rangeFrames` frames).
    func output(ofGroup group: Int, slot: Int) -> AudioBuffer { outputs[group][slot][0] }

    /// Forgets what was rendered ahead and every queued event (a seek moved the source, or the
    /// samplers were reset): the next range starts where asked.
    func discard() {
        // A new epoch with nothing queued: each helper ends the range it is on, then says so.
        epoch = (epoch + 1) & Tagged.epochMask
        publishedCount = 0
        published.store(Tagged(epoch: epoch, count: 0).word, ordering: .sequentiallyConsistent)
        ledger.wakeWaiters()
        wakeHelpers()
        for thread in 0..<threadCount {
            while Tagged(rendered[thread].load(ordering: .sequentiallyConsistent)).epoch != epoch { sem_wait(progress) }
        }
        router.clear()
        isStarted = false
    }

    private func advance() {
        current += 1
        consumed.store(current, ordering: .sequentiallyConsistent)
        wakeHelpers()
    }

    /// Starts the ranges again at `time`, in a new epoch.
    private func restart(at time: Int64) {
        discard()
        consumed.store(0, ordering: .sequentiallyConsistent)
        origin = time
        current = 0
        isStarted = true
        ledger.restart(at: time) { samplers[$0].activeVoiceCount }
    }

    /// Queues the events of every range up to (not including) `end`, range by range, waking the
    /// helpers after each, so they start on a range as soon as its events are there. Ranges after the
    /// one the mix reads wait while the LV2 instruments' queues, which empty only as the mix goes on,
    /// are half full (`SongEventRouter.hasRoomToPullAhead`); what the groups render does not change.
    private func publish(through end: Int) {
        while publishedCount < end {
            if publishedCount > current && !router.hasRoomToPullAhead { return }
            // A sampler takes, at each 64-frame boundary B, the events due before B + 32.
            router.pull(before: origin + Int64((publishedCount + 1) * rangeFrames + SamplerNode.blockFrames / 2))
            publishedCount += 1
            published.store(Tagged(epoch: epoch, count: publishedCount).word, ordering: .sequentiallyConsistent)
            wakeHelpers()
        }
    }

    /// Ranges of this epoch helper `thread` has rendered.
    private func renderedCount(ofHelper thread: Int) -> Int {
        let done = Tagged(rendered[thread].load(ordering: .sequentiallyConsistent))
        return done.epoch == epoch ? done.count : 0
    }

    /// A group's queue is full while its events are pulled: wait while its helper still has
    /// queued ranges to render (they take events); none left means the burst is in one range: drop.
    private func waitForRoom(inQueueOf group: Int) -> Bool {
        guard renderedCount(ofHelper: group % threadCount) < publishedCount else { return false }
        sem_wait(progress)
        return true
    }

    private func wakeHelpers() {
        for thread in 0..<threadCount { sem_post(wake + thread) }
    }

    // MARK: The helpers

    private func renderAhead(thread: Int) {
        var epoch = -1, range = 0
        while !stopping.load(ordering: .sequentiallyConsistent) {
            // `published` first: `origin` and `consumed` are read only once it has ranges queued (stored after them).
            let queued = Tagged(published.load(ordering: .sequentiallyConsistent))
            if queued.epoch != epoch {
                epoch = queued.epoch
                range = 0
                rendered[thread].store(Tagged(epoch: epoch, count: 0).word, ordering: .sequentiallyConsistent)
                sem_post(progress)
            }
            guard range < queued.count, range < consumed.load(ordering: .sequentiallyConsistent) + depth else {
                sem_wait(wake + thread)
                continue
            }
            probe?.willRender(thread, range)
            let start = origin + Int64(range * rangeFrames), slot = range % depth
            ledger.render(samplers, groups: stride(from: thread, to: samplers.count, by: threadCount),
                          from: start, to: start + Int64(rangeFrames),
                          abandon: { stopping.load(ordering: .sequentiallyConsistent) || Tagged(published.load(ordering: .sequentiallyConsistent)).epoch != epoch }) { group in
                let buffer = outputs[group][slot][0]
                return (buffer[0].baseAddress!, buffer[1].baseAddress!)
            }
            range += 1
            rendered[thread].store(Tagged(epoch: epoch, count: range).word, ordering: .sequentiallyConsistent)
            sem_post(progress)
        }
        probe?.didStop(thread)
    }
}

/// A count of ranges and the epoch it belongs to, in one word (the epoch above bit 40).
private struct Tagged {
    /// Epochs wrap within 23 bits (a helper acknowledges each one, so an old one never comes back unseen).
    static let epochMask = 1 << 23 - 1
    var epoch: Int
    var count: Int

    init(epoch: Int, count: Int) {
        self.epoch = epoch
        self.count = count
    }

    init(_ word: Int) {
        epoch = word >> 40
        count = word & (1 << 40 - 1)
    }

    var word: Int { epoch << 40 | count }
}
