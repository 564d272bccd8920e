import AudioGraph
import FluidSynth
import MIDICore
import MIDIFile
import Sampler

/// A song rendered as one stereo pair per MIDI channel beside the mix (`RenderOptions.channelOutputs`,
/// `--jack-multi`): one sampler per channel the song uses, each fed only its channel's events (and
/// the messages of no channel), each pair routed to its own output channels, all summed into the
/// mix. Output channels: 1-2 the mix, then 3-4 channel 1, 5-6 channel 2, … 33-34 channel 16.
enum ChannelOutputs {
    /// Output channels: the mix and 16 pairs.
    static let channelCount = 34

    /// The channels (0-based) `sequence` sends channel messages on.
    static func channelsUsed(by sequence: MusicSequence) -> [Int] {
        var used = Set<Int>()
        for track in sequence.tracks {
            for timed in track.events {
                if case .midi(let message) = timed.event, let channel = message.channel { used.insert(Int(channel)) }
            }
        }
        return used.sorted()
    }

    /// Builds the graph on `engine` (output format set already): a sampler per used channel, made by
    /// `makeSampler`, fed from `source`. Returns the samplers (in channel order), the mix, and the
    /// fan-out the samplers' event sources share (the renderer keeps it).
    static func connect(_ engine: AudioEngine, sequence: MusicSequence, source: any ScheduledMIDISource,
                        sampleRate: Int, makeSampler: () throws(RenderError) -> SamplerNode)
        throws(RenderError) -> (samplers: [SamplerNode], mix: MixerNode, fanOut: ChannelEventFanOut) {
        let channels = channelsUsed(by: sequence)
        let fanOut = ChannelEventFanOut(source: source)
        let stereo = AudioFormat(sampleRate: Double(sampleRate), channelCount: 2)
        let mix = MixerNode(name: "main", format: stereo)
        var routes = ["main:1-2"]
        var sources: [String: AudioNode] = ["main": mix]
        var samplers: [SamplerNode] = []
        for channel in channels {
            let sampler = try makeSampler()
            sampler.eventSource = fanOut.source(forChannel: channel)
            let splitter = SplitterNode(name: "channel \(channel + 1)", outputCount: 2)
            engine.attach(sampler)
            engine.attach(splitter)
            engine.connect(sampler, to: splitter)
            engine.connect(splitter, to: mix, fromBus: 0)
            let name = String(format: "ch%02d", channel + 1)
            routes.append("\(name):\(3 + 2 * channel)-\(4 + 2 * channel)")
            sources[name] = PassThrough.attached(to: engine, from: splitter, bus: 1, format: stereo)
            samplers.append(sampler)
        }
        do throws(ChannelMapError) {
            try engine.connectRoutes(sources, map: try ChannelMap(parsing: routes.joined(separator: ",")))
        } catch {
            throw .channelMap(error)
        }
        return (samplers, mix, fanOut)
    }
}

/// A stereo mixer standing in for a splitter's second output, so the router gets a node of its own.
private enum PassThrough {
    static func attached(to engine: AudioEngine, from splitter: SplitterNode, bus: Int, format: AudioFormat) -> MixerNode {
        let node = MixerNode(name: "\(splitter.name) out", format: format)
        engine.attach(node)
        engine.connect(splitter, to: node, fromBus: bus, toBus: 0)
        return node
    }
}

/// Splits one event source among per-channel sources: whichever sampler asks first pulls the
/// shared source up to its time, stamping each event with its due sample, and queues it for its
/// channel's sampler (messages of no channel for all). Each sampler then takes its own events when
/// their time comes, so samplers rendering a cycle one after the other all play on time. Render
/// thread only; no allocation after init.
final class ChannelEventFanOut: MIDIReceiver, @unchecked Sendable {
    let source: any ScheduledMIDISource
    private var channels: [ChannelEventQueue] = []
    private var stamp: Int64 = 0

    init(source: any ScheduledMIDISource) {
        self.source = source
        channels = (0..<16).map { _ in ChannelEventQueue() }
        for queue in channels { queue.fanOut = self }
    }

    func source(forChannel channel: Int) -> ChannelEventQueue { channels[channel] }

    /// Pulls every event of the shared source due before `sampleTime`, one due time at a time.
    func pull(before sampleTime: Int64) {
        while let next = source.nextEventSampleTime, next < sampleTime {
            // A source that cannot say when (.min) hands over everything due now.
            let upTo = next == .min ? sampleTime : next + 1
            stamp = next == .min ? sampleTime - 1 : next
            source.deliverEvents(before: upTo, to: self)
            if next == .min { return }
        }
    }

    func receive(_ message: MIDIMessage) {
        if let channel = message.channel {
            channels[Int(channel)].append(message, at: stamp)
        } else {
            for queue in channels { queue.append(message, at: stamp) }
        }
    }
}

/// One channel's events, due time first: the event source of that channel's sampler.
final class ChannelEventQueue: ScheduledMIDISource, @unchecked Sendable {
    fileprivate unowned var fanOut: ChannelEventFanOut!
    private static let capacity = 4096
    private var messages = [MIDIMessage](repeating: .tuneRequest, count: capacity)
    private var times = [Int64](repeating: 0, count: capacity)
    private var head = 0
    private var count = 0

    fileprivate func append(_ message: MIDIMessage, at time: Int64) {
        guard count < Self.capacity else { return }  // a burst beyond 4096 events in one block: dropped
        let index = (head + count) % Self.capacity
        messages[index] = message
        times[index] = time
        count += 1
    }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        fanOut.pull(before: sampleTime)
        while count > 0, times[head] < sampleTime {
            receiver.receive(messages[head])
            head = (head + 1) % Self.capacity
            count -= 1
        }
    }

    var nextEventSampleTime: Int64? {
        if count > 0 { return times[head] }
        return fanOut.source.nextEventSampleTime
    }
}
