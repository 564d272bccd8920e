/// An installed LV2 plugin with the control values and preset to start it with, checked against what the
/// plugin declares: the `lv2:URI[,SYMBOL=VALUE…][,preset=NAME]` of `--fx` and `--instrument`.
public struct LV2PluginSettings: Equatable, Sendable {
    /// The plugin.
    public let plugin: LV2PluginInfo
    /// Control input values, applied in order after the preset.
    public let values: [LV2ControlValue]
    /// The preset applied first, if any: its name (rdfs:label) or its URI.
    public let preset: String?

    /// The plugin's URI.
    public var uri: String { plugin.uri }

    /// The plugin with `uri`, checked: installed, hostable, of `role` (effect or instrument; nil for any; an
    /// effect's audio ports must fit the stereo chain), each symbol a control input given once, each value within
    /// its range and one the port takes (0 or 1 for a toggle, a whole number for an integer port, one of the
    /// named values of an enumeration), the preset one of the plugin's (by name or URI).
    public init(uri: String, values: [LV2ControlValue] = [], preset: String? = nil,
                role: LV2PluginInfo.Kind? = nil) throws(LV2Error) {
        let plugin = try LV2Plugins.find(uri: uri)
        if let role {
            let fits = role == .effect ? !plugin.audioInputs.isEmpty && !plugin.audioOutputs.isEmpty : plugin.kind == role
            if !fits { throw .wrongKind(uri: uri, kind: plugin.kind, expected: role) }
        }
        if let missing = plugin.missingFeatures.first { throw .unsupportedFeature(uri: uri, feature: missing) }
        if role == .effect, !plugin.fitsStereoChain {
            throw .unsupportedChannels(uri: uri, inputs: plugin.audioInputs.count, outputs: plugin.audioOutputs.count, channelCount: 2)
        }
        let controls = plugin.controlInputs
        var seen = Set<String>()
        for value in values {
            guard let port = controls.first(where: { $0.symbol == value.symbol }) else {
                throw .unknownPort(uri: uri, symbol: value.symbol, known: controls.map(\.symbol))
            }
            guard seen.insert(value.symbol).inserted else { throw .repeatedSetting(uri: uri, key: value.symbol) }
            if let minimum = port.minimum, let maximum = port.maximum, minimum <= maximum,
               !(minimum...maximum).contains(value.value) {
                throw .outOfRange(uri: uri, symbol: value.symbol, token: value.text, range: minimum...maximum)
            }
            if let allowed = port.refusal(of: value.value) {
                throw .notAllowed(uri: uri, symbol: value.symbol, token: value.text, allowed: allowed)
            }
        }
        if let preset, !plugin.presets.contains(preset), !plugin.presetURIs.contains(preset) {
            throw .unknownPreset(uri: uri, name: preset, known: plugin.presets)
        }
        self.plugin = plugin
        self.values = values
        self.preset = preset
    }

    /// Parses `URI[,SYMBOL=VALUE…][,preset=NAME|URI]` and checks it as `init(uri:values:preset:role:)` does.
    public init(parsing text: String, role: LV2PluginInfo.Kind? = nil) throws(LV2Error) {
        var parts = text.split(separator: ",", omittingEmptySubsequences: true).map {
            String($0).trimmingCharacters(in: " \t")
        }
        let uri = parts.isEmpty ? "" : parts.removeFirst()
        var values: [LV2ControlValue] = []
        var preset: String?
        // Check the plugin first, so an unknown URI is named before its settings.
        let plugin = try LV2Plugins.find(uri: uri)
        for part in parts where !part.isEmpty {
            guard let equals = part.firstIndex(of: "="), equals != part.startIndex else {
                throw .badSetting(uri: plugin.uri, token: part)
            }
            let key = String(part[..<equals])
            let token = String(part[part.index(after: equals)...])
            if key == "preset" {
                guard preset == nil else { throw .repeatedSetting(uri: plugin.uri, key: key) }
                preset = token
                continue
            }
            let trimmed = token.hasPrefix("+") ? String(token.dropFirst()) : token
            guard let number = Float(trimmed), number.isFinite else {
                if plugin.controlInputs.contains(where: { $0.symbol == key }) {
                    throw .notANumber(uri: plugin.uri, symbol: key, token: token)
                }
                throw .unknownPort(uri: plugin.uri, symbol: key, known: plugin.controlInputs.map(\.symbol))
            }
            values.append(LV2ControlValue(symbol: key, value: number, text: token))
        }
        try self.init(uri: uri, values: values, preset: preset, role: role)
    }
}

/// One control input value of `LV2PluginSettings`.
public struct LV2ControlValue: Equatable, Sendable {
    /// The port's symbol.
    public let symbol: String
    public let value: Float
    /// The value as written (for messages).
    public let text: String

    public init(symbol: String, value: Float, text: String? = nil) {
        self.symbol = symbol
        self.value = value
        self.text = text ?? "\(value)"
    }
}

extension LV2ControlValue {
    /// `value` as a setting writes it: `1`, `0.5`.
    static func settingText(_ value: Float) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : "\(value)"
    }
}

extension LV2PortInfo {
    /// What the port takes, when `value` is not one of its values: nil for a value it takes.
    func refusal(of value: Float) -> String? {
        if isEnumeration, !scalePoints.isEmpty {
            guard scalePoints.contains(where: { $0.value == value }) else {
                return "one of " + scalePoints.map { "\(LV2ControlValue.settingText($0.value)) (\($0.label))" }.joined(separator: ", ")
            }
            return nil
        }
        if isToggled, value != 0, value != 1 { return "0 or 1 (the port is a toggle)" }
        if isInteger, value != value.rounded() { return "a whole number (the port is an integer)" }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
