import AudioGraph
import Foundation
import MIDICore
import Sampler

/// A song's channel groups (`ChannelGroups`) rendered each on its own sampler, all fed by the
/// render's one router (`SongEventRouter`), as one graph node: output bus 0 is the mix (the groups summed in group order),
/// bus 1 + g group g alone. The groups render ahead of the mix on helper threads, in parallel with
/// `threads` > 1 (`GroupRenderAhead`), in ranges of `rangeFrames` frames (for a real-time output,
/// one thread renders them each engine cycle alone); the sum is taken in the same order whatever the
/// thread count, so the output does not depend on it. The groups share one voice
/// budget, kept exactly (`VoiceLedger`): each sampler may sound all of it, and a voice is stolen only
/// when the groups together would sound more. Rendering neither allocates nor locks.
// Why unchecked: the AudioNode contract; each group renders on one thread at a time, and the groups share only the voice ledger's atomics and semaphores.
public final class ChannelGroupSampler: AudioNode, @unchecked Sendable {
    /// The samplers, one per group, in group order.
    public let samplers: [SamplerNode]
    public let groups: ChannelGroups
    let router: SongEventRouter
    private let rangeFrames: Int
    /// The most voices the groups sound together.
    let voiceBudget: Int
    /// The budget's ledger, made at prepare.
    private var ledger: VoiceLedger?
    /// With one thread, each group's output this cycle.
    private var cycleOutputs: [AudioBuffer] = []
    private var ahead: GroupRenderAhead?
    /// With several threads, the engine sample time at which the groups stop rendering ahead of
    /// the mix (where the render will end): beyond it they render only what the mix asks for.
    var renderAheadLimit: Int64 = .max {
        didSet { ahead?.aheadLimit = renderAheadLimit }
    }
    /// The output buses of the last cycle.
    private var lastOutputs: [AudioBuffer] = []
    private let threadCount: Int
    /// Whether the groups render ahead of the mix on helper threads (`GroupRenderAhead`).
    private let rendersAhead: Bool

    /// Renders `groups`, whose events `router` queues in its first `groups.groups.count` queues, on the
    /// samplers `makeSampler` makes (one per group), sounding at most `voiceBudget` voices together, rendered ahead on `threads` threads
    /// over ranges of `rangeFrames`; with one thread and `cyclesAlone`, each engine cycle alone,
    /// as a real-time output needs. (Where the budget steals, the voices ended differ between the two
    /// ways, so a render to a file always renders ahead, and is the same on any number of threads.)
    init(groups: ChannelGroups, router: SongEventRouter, voiceBudget: Int, threads: Int, rangeFrames: Int,
         cyclesAlone: Bool, makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) {
        self.voiceBudget = voiceBudget
        self.groups = groups
        self.router = router
        var samplers: [SamplerNode] = []
        for queue in router.queues.prefix(groups.groups.count) {
            let sampler = try makeSampler()
            sampler.eventSource = queue
            samplers.append(sampler)
        }
        self.samplers = samplers
        self.rangeFrames = rangeFrames
        threadCount = max(1, min(threads, samplers.count))
        rendersAhead = !samplers.isEmpty && (threadCount > 1 || !cyclesAlone)
        super.init(name: "channel groups")
    }

    deinit { ahead?.stop() }

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
        if rendersAhead {
            ahead?.stop()
            let rangeFrames = max(rangeFrames, setup.maximumFrameCount)
            let ledger = VoiceLedger(budget: voiceBudget, groups: samplers.count, rangesOf: rangeFrames)
            self.ledger = ledger
            router.ledger = ledger
            ahead = GroupRenderAhead(samplers: samplers, router: router, ledger: ledger, threads: threadCount,
                                     rangeFrames: rangeFrames, format: format)
            ahead?.aheadLimit = renderAheadLimit
        } else {
            let ledger = VoiceLedger(budget: voiceBudget, groups: samplers.count, spanFrames: setup.maximumFrameCount + 4 * SamplerNode.blockFrames)
            self.ledger = ledger
            router.ledger = ledger
            cycleOutputs = samplers.map { _ in AudioBuffer(format: format, frameCapacity: setup.maximumFrameCount) }
        }
    }

    public override func reset() {
        discardRenderedAhead()
        for sampler in samplers { sampler.reset() }
    }

    /// Forgets what was rendered ahead and the queued events, the LV2 instruments' included (a seek
    /// moved the source).
    func discardRenderedAhead() {
        if let ahead {
            ahead.discard()
        } else {
            router.clear()
            ledger?.restart(at: 0) { samplers[$0].activeVoiceCount }
        }
    }

    /// Group `group` alone in the last cycle rendered (its frames are that cycle's output frames).
    public func lastOutput(ofGroup group: Int) -> AudioBuffer { lastOutputs[1 + group] }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        lastOutputs = outputs
        guard !samplers.isEmpty else {
            // No group (a song with no channel message): the mix is silence.
            for channel in 0..<2 { outputs[0][channel].baseAddress!.update(repeating: 0, count: context.frameCount) }
            return
        }
        guard let ahead else {
            // One thread: every group renders this cycle here, with every event it may take in it
            // (at each 64-frame boundary B, a sampler takes those due before B + 32), the groups in
            // step from one boundary with a note-on to the next.
            let end = context.sampleTime + Int64(context.frameCount)
            router.pull(before: end + Int64(SamplerNode.blockFrames / 2))
            ledger?.render(samplers, groups: stride(from: 0, to: samplers.count, by: 1), from: context.sampleTime, to: end) { group in
                (cycleOutputs[group][0].baseAddress!, cycleOutputs[group][1].baseAddress!)
            }
            for group in samplers.indices { cycleOutputs[group].frameLength = context.frameCount }
            copyAndMix(frameCount: context.frameCount, into: outputs, at: 0) { group in (cycleOutputs[group], 0) }
            return
        }
        var done = 0
        while done < context.frameCount {
            let (slot, offset) = ahead.rangeSlot(at: context.sampleTime + Int64(done))
            let count = min(context.frameCount - done, ahead.rangeFrames - offset)
            copyAndMix(frameCount: count, into: outputs, at: done) { group in (ahead.output(ofGroup: group, slot: slot), offset) }
            done += count
        }
    }

    /// Copies `frameCount` frames of each group (`source(g)`: a buffer and the offset to read at)
    /// to its bus at `start`, and their sum, in group order, to the mix.
    private func copyAndMix(frameCount count: Int, into outputs: [AudioBuffer], at start: Int,
                            source: (Int) -> (AudioBuffer, Int)) {
        // Arrays walked by index: `for element in array` allocates in debug builds.
        for group in samplers.indices {
            let (buffer, offset) = source(group)
            for channel in 0..<2 {
                (outputs[1 + group][channel].baseAddress! + start).update(from: buffer[channel].baseAddress! + offset, count: count)
            }
        }
        for channel in 0..<2 {
            let mix = outputs[0][channel].baseAddress! + start
            mix.update(from: outputs[1][channel].baseAddress! + start, count: count)
            for group in 1..<samplers.count {
                let samples = outputs[1 + group][channel].baseAddress! + start
                for i in 0..<count { mix[i] += samples[i] }
            }
        }
    }
}
