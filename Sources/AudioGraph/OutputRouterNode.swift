/// Builds a device-wide output from several graph outputs placed at chosen device channels, as a
/// `ChannelMap` says: input bus i is route i of the map; its channels go, in order, to the route's
/// device channels (a mono input goes to every one of them); device channels no route names are
/// silent. E.g. with `main:1-2,click:3-4` on a 4-channel device, a stereo main mix feeds bus 0 and a
/// stereo click bus 1. `AudioEngine.connectRoutes(_:map:)` wires one in front of the output node.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class OutputRouterNode: AudioNode, @unchecked Sendable {
    /// The routes, one per input bus.
    public let map: ChannelMap
    /// Channels of the output (the device's channel count).
    public let channelCount: Int

    /// A router making `channelCount` channels (at least `map.requiredChannelCount`).
    public init(name: String? = nil, map: ChannelMap, channelCount: Int) throws(ChannelMapError) {
        if let route = map.routes.first(where: { $0.deviceChannels.upperBound > channelCount }) {
            throw .deviceTooSmall(route: route.name, deviceChannelCount: channelCount)
        }
        self.map = map
        self.channelCount = channelCount
        super.init(name: name ?? "output router")
    }

    /// The input bus of the route called `name`.
    public func bus(forRoute name: String) -> Int? { map.routes.firstIndex { $0.name == name } }

    public override var numberOfInputs: Int { map.routes.count }

    /// A route takes its own channel count, or mono.
    public override func acceptsInputFormat(_ format: AudioFormat, onBus bus: Int) -> Bool {
        format.channelCount == map.routes[bus].channelCount || format.channelCount == 1
    }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        AudioFormat(sampleRate: inputFormats[0].sampleRate, channelCount: channelCount)
    }

    /// First device channel (0-based) of each input, in bus order, resolved at prepare.
    private var firstChannels: [Int] = []

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        if let other = setup.inputFormats.first(where: { $0.sampleRate != setup.inputFormats[0].sampleRate }) {
            throw MixedSampleRates(rates: [setup.inputFormats[0].sampleRate, other.sampleRate])
        }
        firstChannels = map.routes.map { $0.deviceChannels.lowerBound - 1 }
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        output.clear()
        for bus in inputs.indices {
            let input = inputs[bus]
            let first = firstChannels[bus]
            for channel in 0..<map.routes[bus].channelCount {
                let source = input[input.channelCount == 1 ? 0 : channel]
                output[first + channel].baseAddress!.update(from: source.baseAddress!, count: source.count)
            }
        }
    }

    /// `prepare` refused: the routed outputs run at different sample rates.
    public struct MixedSampleRates: Error, CustomStringConvertible {
        public let rates: [Double]
        public var description: String {
            "the routed outputs run at different sample rates (\(rates.map { "\($0) Hz" }.joined(separator: ", ")))"
        }
    }
}

extension AudioEngine {
    /// Routes graph outputs to device channels: attaches an `OutputRouterNode` for `map` as wide as
    /// `outputFormat`, connects `sources[name]` to the bus of the route called `name`, and the router
    /// to `outputNode`. Every route needs a source and every source a route. Give each source its own
    /// format (e.g. `MixerNode(format:)` for a stereo main mix): `mainMixerNode` takes the output's.
    @discardableResult
    public func connectRoutes(_ sources: [String: AudioNode], map: ChannelMap) throws(ChannelMapError) -> OutputRouterNode {
        let names = map.routes.map(\.name)
        if let unrouted = sources.keys.sorted().first(where: { !names.contains($0) }) {
            throw .unmatchedName(unrouted, known: names)
        }
        if let missing = names.first(where: { sources[$0] == nil }) {
            throw .unmatchedName(missing, known: sources.keys.sorted())
        }
        let router = try OutputRouterNode(map: map, channelCount: outputFormat.channelCount)
        attach(router)
        for (bus, name) in names.enumerated() {
            attach(sources[name]!)
            connect(sources[name]!, to: router, toBus: bus)
        }
        connect(router, to: outputNode, toBus: 0)
        return router
    }
}
