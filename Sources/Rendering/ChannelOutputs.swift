import AudioGraph
import MIDICore

/// A song rendered as one stereo pair per MIDI channel beside the mix (`RenderOptions.channelOutputs`,
/// `--jack-multi`): channel groups of one channel each (`ChannelGroupSampler`), each group's pair
/// routed to its own output channels, their sum the mix. Output channels: 1-2 the mix, then 3-4
/// channel 1, 5-6 channel 2, … 33-34 channel 16.
enum ChannelOutputs {
    /// Output channels: the mix and 16 pairs.
    static let channelCount = 34

    /// Attaches `groups` (one channel per group) to `engine` (output format set already) and routes
    /// its mix and each channel. Returns the mix.
    static func connect(_ engine: AudioEngine, _ groups: ChannelGroupSampler, sampleRate: Int) throws(RenderError) -> MixerNode {
        let stereo = AudioFormat(sampleRate: Double(sampleRate), channelCount: 2)
        let mix = MixerNode(name: "main", format: stereo)
        engine.attach(groups)
        engine.attach(mix)
        engine.connect(groups, to: mix, fromBus: 0, toBus: 0)
        var routes = ["main:1-2"]
        var sources: [String: AudioNode] = ["main": mix]
        for (index, channels) in groups.groups.groups.enumerated() {
            let channel = channels[0]
            let name = MIDIChannel.name(channel)
            let node = MixerNode(name: name, format: stereo)
            engine.attach(node)
            engine.connect(groups, to: node, fromBus: 1 + index, toBus: 0)
            routes.append("\(name):\(3 + 2 * channel)-\(4 + 2 * channel)")
            sources[name] = node
        }
        do throws(ChannelMapError) {
            try engine.connectRoutes(sources, map: try ChannelMap(parsing: routes.joined(separator: ",")))
        } catch {
            throw .channelMap(error)
        }
        return mix
    }
}
