import Foundation

/// Which output-device channels each named graph output goes to: the `--channel-map` option.
///
/// Syntax: comma-separated `NAME:CHANNELS` entries, where NAME names a graph output (letters,
/// digits, `-` and `_`) and CHANNELS is one device channel `N` or a range `FIRST-LAST`, counted
/// from 1 as on the device's connectors. For example `main:1-2,click:3-4` sends the main mix to
/// channels 1 and 2 and a click to 3 and 4 of a 4-channel device; `main:1-2,click:3` sends a mono
/// click to channel 3. A channel may be used by one entry only; device channels no entry names
/// stay silent. Spaces around entries are ignored.
public struct ChannelMap: Equatable, Sendable, CustomStringConvertible {
    /// One graph output and the device channels it feeds.
    public struct Route: Equatable, Sendable {
        /// The graph output's name.
        public let name: String
        /// Device channels, counted from 1.
        public let deviceChannels: ClosedRange<Int>

        public init(name: String, deviceChannels: ClosedRange<Int>) {
            self.name = name
            self.deviceChannels = deviceChannels
        }

        /// Number of channels the route carries.
        public var channelCount: Int { deviceChannels.count }
    }

    /// The routes in the order given.
    public let routes: [Route]

    /// A map of `routes`, checked: channels from 1, names unique and well formed, no channel in two routes.
    public init(routes: [Route]) throws(ChannelMapError) {
        guard !routes.isEmpty else { throw .empty }
        for (index, route) in routes.enumerated() {
            guard !route.name.isEmpty, route.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw .invalidName(route.name)
            }
            guard route.deviceChannels.lowerBound >= 1 else { throw .channelBelowOne(route: route.name) }
            for earlier in routes[..<index] {
                if earlier.name == route.name { throw .duplicateName(route.name) }
                if earlier.deviceChannels.overlaps(route.deviceChannels) {
                    throw .overlap(first: earlier.name, second: route.name,
                                   channel: max(earlier.deviceChannels.lowerBound, route.deviceChannels.lowerBound))
                }
            }
        }
        self.routes = routes
    }

    /// Parses the `--channel-map` syntax described on the type.
    public init(parsing text: String) throws(ChannelMapError) {
        var routes: [Route] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = entry.trimmingCharacters(in: .whitespaces)
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformedEntry(String(entry)) }
            let bounds = parts[1].split(separator: "-", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard (1...2).contains(bounds.count), let first = bounds.first!, let last = bounds.last!, first <= last else {
                throw .malformedEntry(String(entry))
            }
            routes.append(Route(name: parts[0].trimmingCharacters(in: .whitespaces), deviceChannels: first...last))
        }
        try self.init(routes: routes)
    }

    /// The fewest device channels the map needs: its highest channel.
    public var requiredChannelCount: Int { routes.map(\.deviceChannels.upperBound).max()! }

    /// The route called `name`.
    public func route(named name: String) -> Route? { routes.first { $0.name == name } }

    /// The map in `--channel-map` syntax, e.g. `main:1-2,click:3`.
    public var description: String {
        routes.map { route in
            let channels = route.deviceChannels
            return "\(route.name):" + (channels.count == 1 ? "\(channels.lowerBound)" : "\(channels.lowerBound)-\(channels.upperBound)")
        }.joined(separator: ",")
    }
}

/// Why a channel map was refused; `description` quotes the offending part.
public enum ChannelMapError: Error, Equatable, CustomStringConvertible {
    /// No entries.
    case empty
    /// An entry is not `NAME:N` or `NAME:FIRST-LAST` with FIRST ≤ LAST.
    case malformedEntry(String)
    /// A name is empty or has characters other than letters, digits, `-` and `_`.
    case invalidName(String)
    /// A route names channel 0 or below (device channels count from 1).
    case channelBelowOne(route: String)
    /// Two routes have the same name.
    case duplicateName(String)
    /// Two routes share device channel `channel`.
    case overlap(first: String, second: String, channel: Int)
    /// The device has fewer channels than the map uses.
    case deviceTooSmall(route: String, deviceChannelCount: Int)
    /// A route names no graph output, or a graph output has no route.
    case unmatchedName(String, known: [String])

    public var description: String {
        switch self {
        case .empty: "channel map: no entries; write e.g. main:1-2,click:3-4"
        case .malformedEntry(let entry):
            "channel map: '\(entry)' is not NAME:N or NAME:FIRST-LAST (channels from 1, first ≤ last), e.g. click:3-4"
        case .invalidName(let name): "channel map: '\(name)' is not a name (letters, digits, - and _)"
        case .channelBelowOne(let route): "channel map: '\(route)' uses channel 0 or below; device channels count from 1"
        case .duplicateName(let name): "channel map: '\(name)' is routed twice"
        case .overlap(let first, let second, let channel):
            "channel map: device channel \(channel) is given to both '\(first)' and '\(second)'"
        case .deviceTooSmall(let route, let count):
            "channel map: '\(route)' needs more channels than the device's \(count)"
        case .unmatchedName(let name, let known):
            "channel map: '\(name)' has no match; the graph outputs are \(known.map { "'\($0)'" }.joined(separator: ", "))"
        }
    }
}
