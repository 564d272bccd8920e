/// Why an LV2 plugin cannot be used as asked; every case names the plugin and, where there is a choice, the
/// valid choices.
public enum LV2Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// No installed plugin has `uri`; `similar` lists installed URIs that look alike (may be empty).
    case unknownPlugin(uri: String, similar: [String], installed: Int)
    /// The plugin is not what the role needs (`expected`: "effect" or "instrument").
    case wrongKind(uri: String, kind: LV2PluginInfo.Kind, expected: LV2PluginInfo.Kind)
    /// `symbol` is not a control input of the plugin; `known` lists them.
    case unknownPort(uri: String, symbol: String, known: [String])
    /// `token` is not a number, as port `symbol` needs.
    case notANumber(uri: String, symbol: String, token: String)
    /// `token` is outside port `symbol`'s range.
    case outOfRange(uri: String, symbol: String, token: String, range: ClosedRange<Float>)
    /// `token` is within port `symbol`'s range but not a value the port takes (`allowed` says which it takes:
    /// 0 or 1 for a toggle, whole numbers, an enumeration's values).
    case notAllowed(uri: String, symbol: String, token: String, allowed: String)
    /// A control port, or the preset, given twice.
    case repeatedSetting(uri: String, key: String)
    /// The plugin has no preset called `name`; `known` lists its presets.
    case unknownPreset(uri: String, name: String, known: [String])
    /// The plugin requires `feature`, which seqplay does not provide.
    case unsupportedFeature(uri: String, feature: String)
    /// The plugin's audio ports do not fit `channelCount` channels.
    case unsupportedChannels(uri: String, inputs: Int, outputs: Int, channelCount: Int)
    /// The plugin's instantiate call failed.
    case instantiateFailed(uri: String)
    /// A settings string with nothing in it, or an entry that is not `SYMBOL=VALUE`.
    case badSetting(uri: String, token: String)

    public var description: String {
        switch self {
        case .unknownPlugin(let uri, let similar, let installed):
            similar.isEmpty
                ? "unknown LV2 plugin '\(uri)' (\(installed) installed: 'seqplay plugins' lists them)"
                : "unknown LV2 plugin '\(uri)' (similar: \(similar.joined(separator: ", ")))"
        case .wrongKind(let uri, let kind, let expected):
            "LV2 plugin '\(uri)' is \(kind == .other ? "neither an instrument nor an effect" : "an \(kind.rawValue)"), not an \(expected.rawValue) ('seqplay plugins --where \(expected.rawValue)' lists them)"
        case .unknownPort(let uri, let symbol, let known):
            "\(uri): unknown control port '\(symbol)' (ports: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        case .notANumber(let uri, let symbol, let token):
            "\(uri): \(symbol) '\(token)' is not a number"
        case .outOfRange(let uri, let symbol, let token, let range):
            "\(uri): \(symbol) '\(token)' is outside \(range.lowerBound)...\(range.upperBound)"
        case .notAllowed(let uri, let symbol, let token, let allowed):
            "\(uri): \(symbol) '\(token)' is not \(allowed)"
        case .repeatedSetting(let uri, let key):
            "\(uri): \(key) is given twice"
        case .unknownPreset(let uri, let name, let known):
            "\(uri): unknown preset '\(name)' (presets: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        case .unsupportedFeature(let uri, let feature):
            "LV2 plugin '\(uri)' requires the feature \(feature), which seqplay does not provide"
        case .unsupportedChannels(let uri, let inputs, let outputs, let channelCount):
            "LV2 plugin '\(uri)' has \(inputs) audio input(s) and \(outputs) output(s): it cannot process \(channelCount) channel(s)"
        case .instantiateFailed(let uri):
            "LV2 plugin '\(uri)' failed to instantiate"
        case .badSetting(let uri, let token):
            "\(uri): '\(token)' is not SYMBOL=VALUE or preset=NAME|URI"
        }
    }
}
