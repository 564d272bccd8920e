/// Which MIDI channels an LV2 instrument plays in a render: `--instrument CH=lv2:URI[,SYMBOL=VALUE…][,preset=NAME]`,
/// where CH is a channel (1-16) or a range (`1-9`). One plugin instance per assignment.
public struct LV2InstrumentAssignment: Equatable, Sendable {
    /// The 0-based channels, ascending.
    public let channels: [Int]
    /// The instrument and its settings.
    public let settings: LV2PluginSettings

    public init(channels: [Int], settings: LV2PluginSettings) {
        self.channels = channels
        self.settings = settings
    }

    /// Parses `CH=lv2:URI[,…]`, checking the plugin is an installed instrument with those ports, values and preset.
    public init(parsing text: String) throws(LV2InstrumentAssignmentError) {
        guard let equals = text.firstIndex(of: "=") else { throw .syntax(text) }
        let channelText = String(text[..<equals])
        let rest = String(text[text.index(after: equals)...])
        guard rest.lowercased().hasPrefix("lv2:") else { throw .syntax(text) }
        let bounds = channelText.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
              (1...16).contains(low), (1...16).contains(high), low <= high else {
            throw .channels(channelText)
        }
        do throws(LV2Error) {
            settings = try LV2PluginSettings(parsing: String(rest.dropFirst(4)), role: .instrument)
        } catch {
            throw .plugin(error)
        }
        channels = Array((low - 1)...(high - 1))
    }

    /// Checks that no channel is given to two instruments.
    public static func check(_ assignments: [LV2InstrumentAssignment]) throws(LV2InstrumentAssignmentError) {
        var seen = Set<Int>()
        for assignment in assignments {
            for channel in assignment.channels where !seen.insert(channel).inserted { throw .channelTwice(channel + 1) }
        }
    }
}

/// What is wrong with an `--instrument` value.
public enum LV2InstrumentAssignmentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `CH=lv2:URI…`.
    case syntax(String)
    /// Not a channel 1-16 or a range of them.
    case channels(String)
    /// A channel given to two instruments.
    case channelTwice(Int)
    /// The plugin part is wrong.
    case plugin(LV2Error)

    public var description: String {
        switch self {
        case .syntax(let text): "'\(text)' is not CH=lv2:URI[,SYMBOL=VALUE…][,preset=NAME] (CH: 1-16 or a range such as 1-9)"
        case .channels(let text): "channel '\(text)' is not 1-16 or a range such as 1-9"
        case .channelTwice(let channel): "channel \(channel) is given to two instruments"
        case .plugin(let error): error.description
        }
    }
}
