import Atomics
import Dispatch
import EngineKernels
#if canImport(Glibc)
import Glibc
#endif

/// The sample side of `SoundFontEngine`: the work its control side recorded for a chunk (each voice's
/// blocks to synthesize and stretches to mix, dry and into the effect buses), kept per fixed group of voices
/// (voice v in group v % `groups`) in time order, done group by group on `threads` threads (the render thread
/// and workers started here), each group into its own buffers; the buffers are summed in group order, so
/// the output is the same bytes on any number of threads. All memory is allocated at init; `run`
/// allocates nothing and takes no lock (the workers are woken by a semaphore, and counted done with atomics).
final class VoiceJobs {
    /// Voice groups, whatever the thread count.
    static let groups = 8
    /// The most frames one chunk has (the render call is cut into chunks of this many).
    static let chunkFrames = 1024
    /// Jobs a group holds; a full group makes the engine run what is recorded so far.
    static let capacity = 2048

    /// One stretch of a voice's current block added to the group's buffer (`seqplay_mix`).
    struct Mix {
        var frame: Int32, count: Int32, offset: Int32, ramp: Int32
        var gainLeft: Float, gainRight: Float, stepLeft: Float, stepRight: Float, targetLeft: Float, targetRight: Float
    }

    /// A block to synthesize (its `SeqplayBlock` in `blocks` at the job's index, its points in the engine's
    /// bank `bank`), a stretch to mix, or a stretch to send to the effect buses (reverb as left, chorus as right), for one voice.
    struct Job {
        enum Kind: UInt8 { case synthesize, synthesizeFresh, mix, send }
        var kind: Kind
        var voice: Int32
        var bank: Int32
        var mix: Mix
    }

    let threads: Int
    private let jobs: UnsafeMutablePointer<Job>
    private let blocks: UnsafeMutablePointer<SeqplayBlock>
    private let counts: UnsafeMutablePointer<Int>
    /// Per group, `chunkFrames` left then `chunkFrames` right.
    private let outputs: UnsafeMutablePointer<Float>
    /// Per group, `chunkFrames` of reverb send then `chunkFrames` of chorus send; whether any was recorded this chunk.
    private let sends: UnsafeMutablePointer<Float>
    private var hasSends = false
    /// Per group, the blocks waiting to be synthesized together (`seqplay_synthesize_batch`): their jobs'
    /// blocks, voices' buffers and filter histories, freshness and voices.
    private let batchBlocks: UnsafeMutablePointer<UnsafePointer<SeqplayBlock>?>
    private let batchOutputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let batchHistories: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let batchFresh: UnsafeMutablePointer<Int32>
    private let batchVoices: UnsafeMutablePointer<Int32>

    // What `run` works on, set for its duration: per bank, its points (`high`, and `low` for a 24-bit font).
    private var high: UnsafePointer<UnsafePointer<Int16>?>?
    private var low: UnsafePointer<UnsafePointer<UInt8>?>?
    private var blockBuffers: UnsafeMutablePointer<Float>?
    private var filterHistories: UnsafeMutablePointer<Float>?

    private var workers: [pthread_t] = []
    private let wake = DispatchSemaphore(value: 0)
    private let nextGroup = ManagedAtomic<Int>(groups)
    private let doneGroups = ManagedAtomic<Int>(0)
    private let stopping = ManagedAtomic<Bool>(false)

    init(polyphony: Int, threads: Int) {
        self.threads = min(max(threads, 1), Self.groups)
        jobs = .allocate(capacity: Self.groups * Self.capacity)
        blocks = .allocate(capacity: Self.groups * Self.capacity)
        blocks.initialize(repeating: SeqplayBlock(), count: Self.groups * Self.capacity)
        counts = .allocate(capacity: Self.groups)
        counts.initialize(repeating: 0, count: Self.groups)
        outputs = .allocate(capacity: Self.groups * 2 * Self.chunkFrames)
        outputs.initialize(repeating: 0, count: Self.groups * 2 * Self.chunkFrames)
        sends = .allocate(capacity: Self.groups * 2 * Self.chunkFrames)
        sends.initialize(repeating: 0, count: Self.groups * 2 * Self.chunkFrames)
        let batch = Self.groups * Int(SEQPLAY_BATCH)
        batchBlocks = .allocate(capacity: batch)
        batchBlocks.initialize(repeating: nil, count: batch)
        batchOutputs = .allocate(capacity: batch)
        batchOutputs.initialize(repeating: nil, count: batch)
        batchHistories = .allocate(capacity: batch)
        batchHistories.initialize(repeating: nil, count: batch)
        batchFresh = .allocate(capacity: batch)
        batchFresh.initialize(repeating: 0, count: batch)
        batchVoices = .allocate(capacity: batch)
        batchVoices.initialize(repeating: 0, count: batch)
        let context = Unmanaged.passUnretained(self).toOpaque()
        for _ in 1..<self.threads {
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { context in
                Unmanaged<VoiceJobs>.fromOpaque(context!).takeUnretainedValue().work()
                return nil
            }, context)
            if started == 0 { workers.append(thread) }
        }
    }

    deinit {
        stopping.store(true, ordering: .releasing)
        for _ in workers { wake.signal() }
        for thread in workers { pthread_join(thread, nil) }
        jobs.deallocate(); blocks.deallocate(); counts.deallocate(); outputs.deallocate(); sends.deallocate()
        batchBlocks.deallocate(); batchOutputs.deallocate(); batchHistories.deallocate(); batchFresh.deallocate(); batchVoices.deallocate()
    }

    private static func group(of voice: Int) -> Int { voice % groups }

    /// Records a block of `voice`, reading the points of bank `bank`, to synthesize; returns whether its
    /// group is full (run the jobs now).
    func record(_ block: SeqplayBlock, voice: Int, bank: Int, fresh: Bool) -> Bool {
        let group = Self.group(of: voice)
        blocks[group * Self.capacity + counts[group]] = block
        return append(Job(kind: fresh ? .synthesizeFresh : .synthesize, voice: Int32(voice), bank: Int32(bank),
                          mix: Mix(frame: 0, count: 0, offset: 0, ramp: 0, gainLeft: 0, gainRight: 0, stepLeft: 0, stepRight: 0, targetLeft: 0, targetRight: 0)),
                      group: group)
    }

    /// Records a stretch of `voice` to mix; returns whether its group is full (run the jobs now).
    func record(_ mix: Mix, voice: Int) -> Bool {
        append(Job(kind: .mix, voice: Int32(voice), bank: 0, mix: mix), group: Self.group(of: voice))
    }

    /// Records a stretch of `voice` to send to the effect buses; returns whether its group is full (run the jobs now).
    func recordSends(_ mix: Mix, voice: Int) -> Bool {
        hasSends = true
        return append(Job(kind: .send, voice: Int32(voice), bank: 0, mix: mix), group: Self.group(of: voice))
    }

    private func append(_ job: Job, group: Int) -> Bool {
        (jobs + group * Self.capacity + counts[group]).initialize(to: job)
        counts[group] += 1
        return counts[group] == Self.capacity
    }

    /// Does every recorded job (bank b's points at `high[b]` and `low[b]`, nil but for a 24-bit font; the
    /// voices' block buffers and filter histories).
    func run(high: UnsafePointer<UnsafePointer<Int16>?>, low: UnsafePointer<UnsafePointer<UInt8>?>, blockBuffers: UnsafeMutablePointer<Float>,
             filterHistories: UnsafeMutablePointer<Float>) {
        self.high = high; self.low = low; self.blockBuffers = blockBuffers; self.filterHistories = filterHistories
        if workers.isEmpty {
            for group in 0..<Self.groups { runGroup(group) }
            return
        }
        doneGroups.store(0, ordering: .releasing)
        nextGroup.store(0, ordering: .releasing)
        // A counted loop: iterating the array allocates in a debug build (its element accessor's frame).
        for _ in 0..<workers.count { wake.signal() }
        claimGroups()
        // The last groups are the workers': wait, letting a worker that has no core of its own have this one.
        while doneGroups.load(ordering: .acquiring) < Self.groups { sched_yield() }
    }

    /// Adds the groups' buffers, in group order, into `left` and `right` (overwritten) for `count` frames, and clears them.
    func sum(into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        Self.sum(outputs, into: left, right, count: count)
    }

    /// Adds the groups' sends, in group order, into `reverb` and `chorus` (overwritten) for `count` frames, and
    /// clears them; returns false, leaving both as they are, when no voice sent in this chunk.
    func sumSends(into reverb: UnsafeMutablePointer<Float>, _ chorus: UnsafeMutablePointer<Float>, count: Int) -> Bool {
        guard hasSends else { return false }
        hasSends = false
        Self.sum(sends, into: reverb, chorus, count: count)
        return true
    }

    private static func sum(_ buffers: UnsafeMutablePointer<Float>, into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        guard count > 0 else { return }
        left.update(from: buffers, count: count)
        right.update(from: buffers + chunkFrames, count: count)
        for group in 1..<groups {
            let buffer = buffers + group * 2 * chunkFrames
            seqplay_add(left, buffer, Int32(count))
            seqplay_add(right, buffer + chunkFrames, Int32(count))
        }
        buffers.update(repeating: 0, count: groups * 2 * chunkFrames)
    }

    private func work() {
        while true {
            wake.wait()
            if stopping.load(ordering: .acquiring) { return }
            claimGroups()
        }
    }

    private func claimGroups() {
        while true {
            let group = nextGroup.loadThenWrappingIncrement(ordering: .acquiringAndReleasing)
            if group >= Self.groups { return }
            runGroup(group)
            doneGroups.wrappingIncrement(ordering: .releasing)
        }
    }

    /// Does a group's jobs in order, except that blocks are synthesized up to `SEQPLAY_BATCH` at a time:
    /// a block waits until the batch is full, its voice is mixed or has another block, a block of another
    /// bank comes, or the jobs end.
    private func runGroup(_ group: Int) {
        guard let high, let low, let blockBuffers, let filterHistories else { return }
        let left = outputs + group * 2 * Self.chunkFrames, right = left + Self.chunkFrames
        let sendLeft = sends + group * 2 * Self.chunkFrames
        let base = jobs + group * Self.capacity
        let batch = Int(SEQPLAY_BATCH), first = group * batch
        var waiting = 0  // (no nested functions here: capturing this would allocate its box)
        var bank = 0  // the bank of the blocks waiting
        for index in 0..<counts[group] {
            let job = base + index
            let voice = Int(job.pointee.voice)
            let buffer = blockBuffers + voice * SoundFontEngine.blockSize
            for slot in first..<(first + waiting) where batchVoices[slot] == job.pointee.voice {
                synthesize(first: first, count: waiting, high: high[bank], low: low[bank])
                waiting = 0
                break
            }
            switch job.pointee.kind {
            case .synthesize, .synthesizeFresh:
                if waiting > 0 && Int(job.pointee.bank) != bank {
                    synthesize(first: first, count: waiting, high: high[bank], low: low[bank])
                    waiting = 0
                }
                bank = Int(job.pointee.bank)
                let slot = first + waiting
                batchBlocks[slot] = UnsafePointer(blocks + group * Self.capacity + index)
                batchOutputs[slot] = buffer
                batchHistories[slot] = filterHistories + 2 * voice
                batchFresh[slot] = job.pointee.kind == .synthesizeFresh ? 1 : 0
                batchVoices[slot] = job.pointee.voice
                waiting += 1
                if waiting == batch {
                    synthesize(first: first, count: waiting, high: high[bank], low: low[bank])
                    waiting = 0
                }
            case .mix, .send:
                let mix = job.pointee.mix
                let (toLeft, toRight) = job.pointee.kind == .mix ? (left, right) : (sendLeft, sendLeft + Self.chunkFrames)
                seqplay_mix(buffer + Int(mix.offset), toLeft + Int(mix.frame), toRight + Int(mix.frame), mix.count,
                            mix.gainLeft, mix.gainRight, mix.stepLeft, mix.stepRight, mix.ramp, mix.targetLeft, mix.targetRight)
            }
        }
        synthesize(first: first, count: waiting, high: high[bank], low: low[bank])
        counts[group] = 0
    }

    private func synthesize(first: Int, count: Int, high: UnsafePointer<Int16>?, low: UnsafePointer<UInt8>?) {
        guard count > 0, let high else { return }
        seqplay_synthesize_batch(batchBlocks + first, batchOutputs + first, batchHistories + first, batchFresh + first, Int32(count), high, low)
    }
}
