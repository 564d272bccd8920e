internal import CLilv
import Foundation

/// The installed LV2 plugins (lilv's world, loaded once per process on first use).
public enum LV2Plugins {
    /// Every installed plugin, ordered by URI.
    public static func all() -> [LV2PluginInfo] { LV2World.shared.allInfos }

    /// The installed plugin with `uri`, or nil.
    public static func plugin(uri: String) -> LV2PluginInfo? { LV2World.shared.info(uri: uri) }

    /// The installed plugin with `uri`; throws `LV2Error.unknownPlugin` naming URIs that look alike.
    public static func find(uri: String) throws(LV2Error) -> LV2PluginInfo {
        if let info = plugin(uri: uri) { return info }
        let all = all()
        let key = uri.lowercased().split(whereSeparator: { "/#:".contains($0) }).last.map(String.init) ?? uri.lowercased()
        let similar = all.map(\.uri).filter { !key.isEmpty && $0.lowercased().contains(key) }
        throw .unknownPlugin(uri: uri, similar: Array(similar.prefix(8)), installed: all.count)
    }

    /// The feature URIs seqplay provides to the plugins it hosts.
    public static let providedFeatures: [String] = [
        LV2URI.uridMap, LV2URI.uridUnmap, LV2URI.options, LV2URI.boundedBlockLength, LV2URI.workerSchedule,
        LV2URI.log, LV2URI.hardRTCapable, LV2URI.inPlaceBroken, LV2URI.isLive, LV2URI.loadDefaultState,
    ]
}

/// URIs of the LV2 vocabulary seqplay uses.
enum LV2URI {
    static let core = "http://lv2plug.in/ns/lv2core#"
    static let uridMap = "http://lv2plug.in/ns/ext/urid#map"
    static let uridUnmap = "http://lv2plug.in/ns/ext/urid#unmap"
    static let options = "http://lv2plug.in/ns/ext/options#options"
    static let boundedBlockLength = "http://lv2plug.in/ns/ext/buf-size#boundedBlockLength"
    static let minBlockLength = "http://lv2plug.in/ns/ext/buf-size#minBlockLength"
    static let maxBlockLength = "http://lv2plug.in/ns/ext/buf-size#maxBlockLength"
    static let nominalBlockLength = "http://lv2plug.in/ns/ext/buf-size#nominalBlockLength"
    static let sequenceSize = "http://lv2plug.in/ns/ext/buf-size#sequenceSize"
    static let sampleRate = "http://lv2plug.in/ns/ext/parameters#sampleRate"
    static let workerSchedule = "http://lv2plug.in/ns/ext/worker#schedule"
    static let workerInterface = "http://lv2plug.in/ns/ext/worker#interface"
    static let log = "http://lv2plug.in/ns/ext/log#log"
    static let logError = "http://lv2plug.in/ns/ext/log#Error"
    static let logWarning = "http://lv2plug.in/ns/ext/log#Warning"
    static let logNote = "http://lv2plug.in/ns/ext/log#Note"
    static let hardRTCapable = core + "hardRTCapable"
    static let inPlaceBroken = core + "inPlaceBroken"
    static let isLive = core + "isLive"
    static let loadDefaultState = "http://lv2plug.in/ns/ext/state#loadDefaultState"
    static let atomInt = "http://lv2plug.in/ns/ext/atom#Int"
    static let atomFloat = "http://lv2plug.in/ns/ext/atom#Float"
    static let atomDouble = "http://lv2plug.in/ns/ext/atom#Double"
    static let atomBool = "http://lv2plug.in/ns/ext/atom#Bool"
    static let atomSequence = "http://lv2plug.in/ns/ext/atom#Sequence"
    static let atomChunk = "http://lv2plug.in/ns/ext/atom#Chunk"
    static let atomPort = "http://lv2plug.in/ns/ext/atom#AtomPort"
    static let atomSupports = "http://lv2plug.in/ns/ext/atom#supports"
    static let frameTime = "http://lv2plug.in/ns/ext/atom#frameTime"
    static let midiEvent = "http://lv2plug.in/ns/ext/midi#MidiEvent"
    static let preset = "http://lv2plug.in/ns/ext/presets#Preset"
    static let rdfsLabel = "http://www.w3.org/2000/01/rdf-schema#label"
}

/// lilv's world: loaded once, used under one lock (lilv is not thread-safe). Only this module sees it.
// Why unchecked: lilv is used only under `lock` (it is not thread-safe); the plugin list is made once under it.
final class LV2World: @unchecked Sendable {
    static let shared = LV2World()

    let lock = NSLock()
    let world: OpaquePointer
    private let plugins: UnsafeRawPointer?
    private var infos: [String: LV2PluginInfo] = [:]
    private var sortedInfos: [LV2PluginInfo]?
    private let nodes: [String: OpaquePointer]

    private init() {
        world = lilv_world_new()
        lilv_world_load_all(world)
        plugins = UnsafeRawPointer(lilv_world_get_all_plugins(world))
        var nodes: [String: OpaquePointer] = [:]
        for uri in [LV2URI.core + "AudioPort", LV2URI.core + "ControlPort", LV2URI.core + "CVPort", LV2URI.atomPort,
                    LV2URI.core + "InputPort", LV2URI.core + "OutputPort", LV2URI.midiEvent, LV2URI.core + "InstrumentPlugin",
                    LV2URI.preset, LV2URI.rdfsLabel, LV2URI.core + "toggled", LV2URI.core + "integer", LV2URI.core + "enumeration",
                    LV2URI.core + "connectionOptional"] {
            nodes[uri] = lilv_new_uri(world, uri)
        }
        self.nodes = nodes
    }

    func node(_ uri: String) -> OpaquePointer { nodes[uri]! }

    /// The lilv plugin with `uri`. Under `lock`.
    func lilvPlugin(uri: String) -> OpaquePointer? {
        // lilv prints an error for a string that is not a URI (no scheme): it is simply not a plugin.
        guard Self.hasScheme(uri) else { return nil }
        let node = lilv_new_uri(world, uri)
        defer { lilv_node_free(node) }
        return lilv_plugins_get_by_uri(plugins, node)
    }

    /// Whether `text` starts with a URI scheme (`letter *( letter / digit / "+" / "-" / "." ) ":"`).
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else { return false }
        return text[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    var allInfos: [LV2PluginInfo] {
        lock.withLock {
            if let sortedInfos { return sortedInfos }
            var result: [LV2PluginInfo] = []
            var iterator = lilv_plugins_begin(plugins)
            while !lilv_plugins_is_end(plugins, iterator) {
                if let plugin = lilv_plugins_get(plugins, iterator) { result.append(cachedInfo(plugin)) }
                iterator = lilv_plugins_next(plugins, iterator)
            }
            result.sort { $0.uri < $1.uri }
            sortedInfos = result
            return result
        }
    }

    func info(uri: String) -> LV2PluginInfo? {
        lock.withLock { lilvPlugin(uri: uri).map(cachedInfo) }
    }

    private func cachedInfo(_ plugin: OpaquePointer) -> LV2PluginInfo {
        let uri = string(lilv_plugin_get_uri(plugin)) ?? ""
        if let known = infos[uri] { return known }
        let info = readInfo(plugin, uri: uri)
        infos[uri] = info
        return info
    }

    private func string(_ node: OpaquePointer?) -> String? {
        guard let node, let text = lilv_node_as_string(node) else { return nil }
        return String(cString: text)
    }

    /// Takes ownership of `nodes` (freed here) and returns their strings.
    private func strings(_ nodes: UnsafeMutableRawPointer?) -> [String] {
        guard let nodes else { return [] }
        defer { lilv_nodes_free(nodes) }
        var result: [String] = []
        var iterator = lilv_nodes_begin(nodes)
        while !lilv_nodes_is_end(nodes, iterator) {
            if let text = string(lilv_nodes_get(nodes, iterator)) { result.append(text) }
            iterator = lilv_nodes_next(nodes, iterator)
        }
        return result
    }

    /// The preset URIs and labels of `plugin`. Under `lock`.
    func presets(of plugin: OpaquePointer) -> [(uri: String, label: String)] {
        guard let related = lilv_plugin_get_related(plugin, node(LV2URI.preset)) else { return [] }
        defer { lilv_nodes_free(related) }
        var result: [(String, String)] = []
        var iterator = lilv_nodes_begin(related)
        while !lilv_nodes_is_end(related, iterator) {
            if let preset = lilv_nodes_get(related, iterator), let uri = string(preset) {
                lilv_world_load_resource(world, preset)
                let labels = strings(lilv_world_find_nodes(world, preset, node(LV2URI.rdfsLabel), nil))
                result.append((uri, labels.first ?? uri))
            }
            iterator = lilv_nodes_next(related, iterator)
        }
        return result
    }

    private func readInfo(_ plugin: OpaquePointer, uri: String) -> LV2PluginInfo {
        let nameNode = lilv_plugin_get_name(plugin)
        let name = string(nameNode) ?? uri
        if let nameNode { lilv_node_free(nameNode) }
        let pluginClass = lilv_plugin_get_class(plugin)
        let className = string(lilv_plugin_class_get_label(pluginClass)) ?? ""
        let classURI = string(lilv_plugin_class_get_uri(pluginClass)) ?? ""
        var ports: [LV2PortInfo] = []
        for index in 0..<lilv_plugin_get_num_ports(plugin) {
            guard let port = lilv_plugin_get_port_by_index(plugin, index) else { continue }
            func isA(_ uri: String) -> Bool { lilv_port_is_a(plugin, port, node(uri)) }
            func has(_ uri: String) -> Bool { lilv_port_has_property(plugin, port, node(uri)) }
            let type: LV2PortInfo.PortType =
                isA(LV2URI.core + "AudioPort") ? .audio : isA(LV2URI.core + "ControlPort") ? .control
                : isA(LV2URI.atomPort) ? .atom : isA(LV2URI.core + "CVPort") ? .cv : .other
            var minimum: OpaquePointer?, maximum: OpaquePointer?, defaultValue: OpaquePointer?
            lilv_port_get_range(plugin, port, &defaultValue, &minimum, &maximum)
            func float(_ node: OpaquePointer?) -> Float? {
                guard let node, lilv_node_is_float(node) || lilv_node_is_int(node) else { return nil }
                return lilv_node_as_float(node)
            }
            let portNameNode = lilv_port_get_name(plugin, port)
            var scalePoints: [LV2ScalePoint] = []
            if type == .control, let points = lilv_port_get_scale_points(plugin, port) {
                var iterator = lilv_scale_points_begin(points)
                while !lilv_scale_points_is_end(points, iterator) {
                    if let point = lilv_scale_points_get(points, iterator), let value = float(lilv_scale_point_get_value(point)) {
                        scalePoints.append(LV2ScalePoint(value: value, label: string(lilv_scale_point_get_label(point)) ?? ""))
                    }
                    iterator = lilv_scale_points_next(points, iterator)
                }
                lilv_scale_points_free(points)
                scalePoints.sort { $0.value < $1.value }
            }
            ports.append(LV2PortInfo(
                index: Int(index), symbol: string(lilv_port_get_symbol(plugin, port)) ?? "\(index)",
                name: string(portNameNode) ?? "", type: type,
                direction: isA(LV2URI.core + "OutputPort") ? .output : .input,
                supportsMIDI: type == .atom && lilv_port_supports_event(plugin, port, node(LV2URI.midiEvent)),
                minimum: type == .control ? float(minimum) : nil, maximum: type == .control ? float(maximum) : nil,
                defaultValue: type == .control ? float(defaultValue) : nil,
                isToggled: has(LV2URI.core + "toggled"), isInteger: has(LV2URI.core + "integer"),
                isEnumeration: has(LV2URI.core + "enumeration"), scalePoints: scalePoints,
                isOptional: has(LV2URI.core + "connectionOptional")))
            for node in [minimum, maximum, defaultValue, portNameNode] { if let node { lilv_node_free(node) } }
        }
        let required = strings(lilv_plugin_get_required_features(plugin))
        let optional = strings(lilv_plugin_get_optional_features(plugin))
        let audioIn = ports.contains { $0.type == .audio && $0.direction == .input }
        let audioOut = ports.contains { $0.type == .audio && $0.direction == .output }
        let midiIn = ports.contains { $0.type == .atom && $0.direction == .input && $0.supportsMIDI }
        let kind: LV2PluginInfo.Kind =
            audioOut && midiIn && (!audioIn || classURI == LV2URI.core + "InstrumentPlugin") ? .instrument
            : audioIn && audioOut ? .effect : .other
        let presets = presets(of: plugin)
        let latency = lilv_plugin_has_latency(plugin) ? Int(lilv_plugin_get_latency_port_index(plugin)) : nil
        return LV2PluginInfo(
            uri: uri, name: name, className: className, kind: kind, ports: ports,
            presets: presets.map(\.label), presetURIs: presets.map(\.uri), requiredFeatures: required, optionalFeatures: optional,
            missingFeatures: required.filter { !LV2Plugins.providedFeatures.contains($0) },
            latencyPortIndex: latency)
    }
}
