import AudioGraph
import Foundation
import MIDICore
import Sampler

/// A song's channel groups (`ChannelGroups`) rendered each on its own sampler, all fed from one
/// event source, as one graph node: output bus 0 is the mix (the groups summed in group order),
/// bus 1 + g group g alone. With `threads` > 1 the groups render in parallel, each thread its
/// fixed share of the groups, over ranges of `rangeFrames` frames rendered ahead; the sum is
/// taken in the same order whatever the thread count, so the output does not depend on it.
/// Rendering neither allocates nor locks; the threads meet at one barrier per range.
public final class ChannelGroupSampler: AudioNode, @unchecked Sendable {
    /// The samplers, one per group, in group order.
    public let samplers: [SamplerNode]
    public let groups: ChannelGroups
    let fanOut: ChannelGroupFanOut
    private let rangeFrames: Int
    private var ranges: [AudioBuffer] = []
    /// `[ranges[g]]`, made once: a sampler's `outputs` argument.
    private var rangeOutputs: [[AudioBuffer]] = []
    /// Engine sample time of the first frame in `ranges`, and how many frames they hold.
    private var rangeStart: Int64 = 0
    private var rangeLength = 0
    private var workers: GroupRenderThreads?
    /// The output buses of the last cycle.
    private var lastOutputs: [AudioBuffer] = []
    private let threadCount: Int

    /// Groups `groups` of the events of `source` on the samplers `makeSampler` makes (one per
    /// group), rendered on `threads` threads over ranges of `rangeFrames` (0: each engine cycle alone,
    /// as a real-time output needs).
    init(groups: ChannelGroups, source: any ScheduledMIDISource, threads: Int, rangeFrames: Int,
         makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) {
        self.groups = groups
        fanOut = ChannelGroupFanOut(source: source, groups: groups)
        var samplers: [SamplerNode] = []
        for queue in fanOut.queues {
            let sampler = try makeSampler()
            sampler.eventSource = queue
            samplers.append(sampler)
        }
        self.samplers = samplers
        self.rangeFrames = rangeFrames
        threadCount = max(1, min(threads, samplers.count))
        super.init(name: "channel groups")
    }

    deinit { workers?.stop() }

    public override var numberOfInputs: Int { 0 }
    public override var numberOfOutputs: Int { 1 + samplers.count }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        AudioFormat(sampleRate: engine?.outputFormat.sampleRate ?? 44_100, channelCount: 2)
    }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        let format = AudioFormat(sampleRate: setup.outputFormats[0].sampleRate, channelCount: 2)
        for sampler in samplers {
            try sampler.prepare(AudioNodeRenderSetup(connectedInputBuses: [], inputFormats: [], outputFormats: [format], maximumFrameCount: setup.maximumFrameCount))
        }
        let capacity = max(rangeFrames, setup.maximumFrameCount)
        ranges = samplers.map { _ in AudioBuffer(format: format, frameCapacity: capacity) }
        rangeOutputs = ranges.map { [$0] }
        if threadCount > 1, workers == nil {
            workers = GroupRenderThreads(count: threadCount) { [unowned self] thread, context in
                self.renderGroups(context, thread: thread)
            }
        }
    }

    public override func reset() {
        for sampler in samplers { sampler.reset() }
        fanOut.clear()
        rangeLength = 0
    }

    /// Forgets what was rendered ahead and the queued events (a seek moved the source).
    func discardRenderedAhead() {
        fanOut.clear()
        rangeLength = 0
    }

    /// Group `group` alone in the last cycle rendered (its frames are that cycle's output frames).
    public func lastOutput(ofGroup group: Int) -> AudioBuffer { lastOutputs[1 + group] }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        lastOutputs = outputs
        guard !ranges.isEmpty else {
            // No group (a song with no channel message): the mix is silence.
            for channel in 0..<2 { outputs[0][channel].baseAddress!.update(repeating: 0, count: context.frameCount) }
            return
        }
        var done = 0
        while done < context.frameCount {
            let time = context.sampleTime + Int64(done)
            if rangeLength == 0 || time < rangeStart || time >= rangeStart + Int64(rangeLength) {
                renderRange(from: time, frameCount: max(rangeFrames, context.frameCount - done))
            }
            let offset = Int(time - rangeStart)
            let count = min(context.frameCount - done, rangeLength - offset)
            // Arrays walked by index: `for element in array` allocates in debug builds.
            for group in ranges.indices {
                for channel in 0..<2 {
                    (outputs[1 + group][channel].baseAddress! + done).update(from: ranges[group][channel].baseAddress! + offset, count: count)
                }
            }
            // The mix: the groups summed in group order.
            for channel in 0..<2 {
                let mix = outputs[0][channel].baseAddress! + done
                mix.update(from: ranges[0][channel].baseAddress! + offset, count: count)
                for group in 1..<ranges.count {
                    let samples = ranges[group][channel].baseAddress! + offset
                    for i in 0..<count { mix[i] += samples[i] }
                }
            }
            done += count
        }
    }

    /// Renders every group's next `frameCount` frames from `time` into `ranges`.
    private func renderRange(from time: Int64, frameCount: Int) {
        let count = min(frameCount, ranges[0].frameCapacity)
        // Every event a sampler may take in the range: it asks, at each 64-frame boundary B, for those before B + 32.
        fanOut.pull(before: time + Int64(count) + Int64(SamplerNode.blockFrames / 2))
        let context = RenderContext(sampleTime: time, frameCount: count)
        for group in ranges.indices { ranges[group].frameLength = count }
        if let workers {
            workers.run(context)
        } else {
            renderGroups(context, thread: 0)
        }
        rangeStart = time
        rangeLength = count
    }

    /// Renders the groups of thread `thread` (g with g % threads == thread).
    private func renderGroups(_ context: RenderContext, thread: Int) {
        var group = thread
        while group < samplers.count {
            samplers[group].render(context, inputs: [], outputs: rangeOutputs[group])
            group += threadCount
        }
    }
}

/// `count` − 1 helper threads that, with the calling thread, run `body(thread, context)` for
/// threads 0..<count on each `run(context)` and return when all are done: one barrier per run
/// (POSIX semaphores; no allocation).
final class GroupRenderThreads: @unchecked Sendable {
    private let count: Int
    private let body: (Int, RenderContext) -> Void
    private let start: UnsafeMutablePointer<sem_t>
    private let finished: UnsafeMutablePointer<sem_t>
    private var context = RenderContext(sampleTime: 0, frameCount: 0)
    private var stopping = false
    private var threads: [Thread] = []

    init(count: Int, body: @escaping (Int, RenderContext) -> Void) {
        self.count = count
        self.body = body
        start = .allocate(capacity: count)
        finished = .allocate(capacity: 1)
        for index in 0..<count { sem_init(start + index, 0, 0) }
        sem_init(finished, 0, 0)
        for index in 1..<count {
            let thread = Thread { [self] in
                while true {
                    sem_wait(start + index)
                    if stopping { break }
                    self.body(index, context)
                    sem_post(finished)
                }
                sem_post(finished)
            }
            thread.name = "seqplay group \(index)"
            thread.start()
            threads.append(thread)
        }
    }

    func run(_ context: RenderContext) {
        self.context = context
        for index in 1..<count { sem_post(start + index) }
        body(0, context)
        for _ in 1..<count { sem_wait(finished) }
    }

    /// Ends the helper threads (waits for them).
    func stop() {
        stopping = true
        for index in 1..<count { sem_post(start + index) }
        for _ in 1..<count { sem_wait(finished) }
        for index in 0..<count { sem_destroy(start + index) }
        sem_destroy(finished)
        start.deallocate()
        finished.deallocate()
    }
}
