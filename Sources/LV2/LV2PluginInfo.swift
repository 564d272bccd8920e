/// What an installed LV2 plugin is, as its bundle's data describes it (what `lv2info` shows): URI, name,
/// class, ports with ranges and defaults, presets, required features, and whether seqplay can host it.
/// `LV2Plugins` finds them.
public struct LV2PluginInfo: Equatable, Sendable, Encodable {
    /// What a plugin is for, from its ports and class.
    public enum Kind: String, Equatable, Sendable, Codable {
        /// Takes MIDI (an atom port supporting MIDI events) and has audio outputs but no audio inputs, or is of
        /// class lv2:InstrumentPlugin.
        case instrument
        /// Audio in and audio out.
        case effect
        /// Anything else (MIDI filters, meters, generators).
        case other
    }

    public let uri: String
    public let name: String
    /// The plugin class's label (e.g. "Delay Plugin", "Instrument Plugin").
    public let className: String
    public let kind: Kind
    public let ports: [LV2PortInfo]
    /// The names of the plugin's presets (rdfs:label), in the order the world lists them.
    public let presets: [String]
    /// The URIs of the plugin's presets, in the order of `presets`.
    public let presetURIs: [String]
    /// The feature URIs the plugin cannot run without.
    public let requiredFeatures: [String]
    /// The feature URIs the plugin uses when the host offers them.
    public let optionalFeatures: [String]
    /// The required features seqplay does not provide (empty when it can host the plugin).
    public let missingFeatures: [String]
    /// The index of the control output port reporting the plugin's latency, if it has one.
    public let latencyPortIndex: Int?

    private enum CodingKeys: String, CodingKey {
        case uri, name, className = "class", kind, hostable, usable, unusableReason, ports, presets, presetURIs,
             requiredFeatures, optionalFeatures, missingFeatures, latencyPort
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uri, forKey: .uri)
        try container.encode(name, forKey: .name)
        try container.encode(className, forKey: .className)
        try container.encode(kind, forKey: .kind)
        try container.encode(isHostable, forKey: .hostable)
        try container.encode(isUsable, forKey: .usable)
        try container.encodeIfPresent(unusableReason, forKey: .unusableReason)
        try container.encode(ports, forKey: .ports)
        try container.encode(presets, forKey: .presets)
        try container.encode(presetURIs, forKey: .presetURIs)
        try container.encode(requiredFeatures, forKey: .requiredFeatures)
        try container.encode(optionalFeatures, forKey: .optionalFeatures)
        try container.encode(missingFeatures, forKey: .missingFeatures)
        try container.encodeIfPresent(latencyPortIndex, forKey: .latencyPort)
    }

    /// Whether seqplay can host the plugin: every required feature is provided.
    public var isHostable: Bool { missingFeatures.isEmpty }

    /// Whether the plugin's audio ports fit seqplay's stereo effect chain: 2 in and 2 out (one instance), 1 in
    /// and 1 out (one instance per channel) or 1 in and 2 out (the channels' average in).
    public var fitsStereoChain: Bool {
        switch (audioInputs.count, audioOutputs.count) {
        case (2, 2), (1, 1), (1, 2): true
        default: false
        }
    }

    /// Whether seqplay can use the plugin for what it is: hostable, and an effect that fits the stereo chain.
    public var isUsable: Bool { unusableReason == nil }

    /// Why seqplay cannot use the plugin (a missing feature, an effect's audio ports that do not fit the stereo
    /// chain), or nil when it can.
    public var unusableReason: String? {
        if !isHostable { return "needs \(missingFeatures.joined(separator: ", "))" }
        if kind == .effect && !fitsStereoChain {
            return "\(audioInputs.count) audio input(s) and \(audioOutputs.count) output(s) do not fit the stereo effect chain"
        }
        return nil
    }

    /// The audio input ports.
    public var audioInputs: [LV2PortInfo] { ports.filter { $0.type == .audio && $0.direction == .input } }
    /// The audio output ports.
    public var audioOutputs: [LV2PortInfo] { ports.filter { $0.type == .audio && $0.direction == .output } }
    /// The control input ports (the settings `SYMBOL=VALUE` sets).
    public var controlInputs: [LV2PortInfo] { ports.filter { $0.type == .control && $0.direction == .input } }
    /// The atom input ports that take MIDI.
    public var midiInputs: [LV2PortInfo] { ports.filter { $0.type == .atom && $0.direction == .input && $0.supportsMIDI } }
}

/// One port of an LV2 plugin.
public struct LV2PortInfo: Equatable, Sendable, Codable {
    /// What flows through a port.
    public enum PortType: String, Equatable, Sendable, Codable {
        case audio, control, atom, cv, other
    }
    /// Into the plugin or out of it.
    public enum Direction: String, Equatable, Sendable, Codable {
        case input, output
    }

    public let index: Int
    public let symbol: String
    public let name: String
    public let type: PortType
    public let direction: Direction
    /// For atom ports: whether it carries MIDI events.
    public let supportsMIDI: Bool
    /// For control ports: the range and default the plugin declares (nil when it declares none).
    public let minimum: Float?
    public let maximum: Float?
    public let defaultValue: Float?
    /// lv2:toggled (0 or 1), lv2:integer, lv2:enumeration (one of `scalePoints`).
    public let isToggled: Bool
    public let isInteger: Bool
    public let isEnumeration: Bool
    /// The values the plugin names (lv2:scalePoint), ascending.
    public let scalePoints: [LV2ScalePoint]
    /// Whether the plugin runs with this port unconnected (lv2:connectionOptional).
    public let isOptional: Bool
}


/// A value of a control port that the plugin names (lv2:scalePoint): for an enumeration port, one of the
/// values it takes.
public struct LV2ScalePoint: Equatable, Sendable, Codable {
    public let value: Float
    public let label: String
}
