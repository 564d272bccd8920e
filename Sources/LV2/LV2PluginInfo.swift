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
    /// The feature URIs the plugin cannot run without.
    public let requiredFeatures: [String]
    /// The feature URIs the plugin uses when the host offers them.
    public let optionalFeatures: [String]
    /// The required features seqplay does not provide (empty when it can host the plugin).
    public let missingFeatures: [String]
    /// The index of the control output port reporting the plugin's latency, if it has one.
    public let latencyPortIndex: Int?

    private enum CodingKeys: String, CodingKey {
        case uri, name, className = "class", kind, hostable, ports, presets, requiredFeatures, optionalFeatures,
             missingFeatures, latencyPort
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uri, forKey: .uri)
        try container.encode(name, forKey: .name)
        try container.encode(className, forKey: .className)
        try container.encode(kind, forKey: .kind)
        try container.encode(isHostable, forKey: .hostable)
        try container.encode(ports, forKey: .ports)
        try container.encode(presets, forKey: .presets)
        try container.encode(requiredFeatures, forKey: .requiredFeatures)
        try container.encode(optionalFeatures, forKey: .optionalFeatures)
        try container.encode(missingFeatures, forKey: .missingFeatures)
        try container.encodeIfPresent(latencyPortIndex, forKey: .latencyPort)
    }

    /// Whether seqplay can host the plugin: every required feature is provided.
    public var isHostable: Bool { missingFeatures.isEmpty }

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
    /// lv2:toggled (0 or 1), lv2:integer, lv2:enumeration.
    public let isToggled: Bool
    public let isInteger: Bool
    /// Whether the plugin runs with this port unconnected (lv2:connectionOptional).
    public let isOptional: Bool
}
