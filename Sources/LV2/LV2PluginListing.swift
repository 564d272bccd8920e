/// Which plugins `seqplay plugins --where …` lists: each term is `instrument`, `effect`, `other`, `hostable`,
/// `unhostable`, `usable` or `unusable`, or else text found (ignoring case) in the URI, name or class. All terms
/// must match.
public struct LV2PluginFilter: Equatable, Sendable {
    /// The terms, as given.
    public let terms: [String]

    public init(terms: [String]) { self.terms = terms }

    /// Whether `plugin` matches every term.
    public func matches(_ plugin: LV2PluginInfo) -> Bool {
        terms.allSatisfy { term in
            switch term.lowercased() {
            case "instrument", "instruments": plugin.kind == .instrument
            case "effect", "effects": plugin.kind == .effect || (!plugin.audioInputs.isEmpty && !plugin.audioOutputs.isEmpty)
            case "other": plugin.kind == .other
            case "hostable": plugin.isHostable
            case "unhostable": !plugin.isHostable
            case "usable": plugin.isUsable
            case "unusable": !plugin.isUsable
            default:
                [plugin.uri, plugin.name, plugin.className].contains { $0.lowercased().contains(term.lowercased()) }
            }
        }
    }
}

extension LV2PluginInfo {
    /// One line for a listing: URI, kind, audio in/out and MIDI ports, name, and why seqplay cannot use it (a
    /// feature it lacks to host it, an effect's audio that does not fit the stereo chain).
    public var summaryLine: String {
        let midi = midiInputs.isEmpty ? "" : " midi"
        let ports = "\(audioInputs.count)→\(audioOutputs.count)\(midi)"
        var line = "\(uri)  \(kind.rawValue)  \(ports)  \(name)"
        if let unusableReason { line += "  (\(isHostable ? "not usable" : "not hostable"): \(unusableReason))" }
        return line
    }

    /// Everything known about the plugin, as `lv2info` shows it: class, kind, features, presets, and each port
    /// with its type, direction, range and default.
    public var detailedDescription: String {
        var lines = [uri, "", "  Name:               \(name)", "  Class:              \(className)",
                     "  Kind:               \(kind.rawValue)",
                     "  Hostable:           \(isHostable ? "yes" : "no, needs \(missingFeatures.joined(separator: ", "))")",
                     "  Usable:             \(unusableReason.map { "no, \($0)" } ?? "yes")",
                     "  Latency:            \(latencyPortIndex.map { "reported by port \($0)" } ?? "none")",
                     "  Required features:  \(requiredFeatures.isEmpty ? "none" : requiredFeatures.joined(separator: "\n                      "))",
                     "  Optional features:  \(optionalFeatures.isEmpty ? "none" : optionalFeatures.joined(separator: "\n                      "))",
                     "  Presets:            \(presets.isEmpty ? "none" : zip(presets, presetURIs).map { "\($0)  <\($1)>" }.joined(separator: "\n                      "))", ""]
        for port in ports {
            var text = "  Port \(port.index): \(port.symbol)  \(port.type.rawValue) \(port.direction.rawValue)"
            if port.supportsMIDI { text += " (MIDI)" }
            text += "  \"\(port.name)\""
            if port.type == .control {
                func format(_ value: Float?) -> String { value.map { "\($0)" } ?? "?" }
                text += "  \(format(port.minimum))...\(format(port.maximum)) default \(format(port.defaultValue))"
                if port.isToggled { text += " toggled" }
                if port.isInteger { text += " integer" }
                if port.isEnumeration { text += " enumeration" }
                if !port.scalePoints.isEmpty {
                    text += " (" + port.scalePoints.map { "\(LV2ControlValue.settingText($0.value)) = \($0.label)" }.joined(separator: ", ") + ")"
                }
            }
            if port.isOptional { text += " optional" }
            lines.append(text)
        }
        return lines.joined(separator: "\n")
    }
}
