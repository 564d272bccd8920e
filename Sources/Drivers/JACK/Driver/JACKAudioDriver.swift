import Atomics
import AudioGraph
import Foundation
import MIDICore
import SeqplaySupport
import Synchronization

/// Where the output ports are connected when playback starts.
public enum JACKConnection: Equatable, Sendable {
    /// Port i to the i-th physical playback port (the sound card behind the server), as far as there are.
    case physicalPlayback
    /// Port i to the i-th input port whose name matches this extended regular expression (`^ardour:Audio 1/`).
    case matching(String)
    /// Not connected: a patchbay or the DAW connects them.
    case none
}

/// How a JACK output presents itself to the server.
public struct JACKOutputSettings: Sendable {
    /// The client name (`seqplay`); the server appends a number when it is taken.
    public var clientName: String
    /// The server to use; nil: `$JACK_DEFAULT_SERVER`, else the default server.
    public var serverName: String?
    /// One mono output port per engine channel, in channel order.
    public var portNames: [String]
    /// What the ports are connected to when playback starts.
    public var connection: JACKConnection

    public init(clientName: String = "seqplay", serverName: String? = nil, portNames: [String] = ["out_L", "out_R"],
                connection: JACKConnection = .physicalPlayback) {
        self.clientName = clientName
        self.serverName = serverName
        self.portNames = portNames
        self.connection = connection
    }
}

/// JACK as an audio driver (jackd2, or PipeWire's JACK API): a `CallbackAudioDriver` whose cycles are
/// JACK's process callbacks, each rendering exactly the frames JACK asks for straight into one output
/// port per channel. The sample rate and block size are the server's. A server that shuts down (or
/// drops the client) fails the playback with the server's reason.
// Why unchecked: immutable after init; start and stop come from the output's one control thread, and what the process callback touches is ProcessCycle's.
public final class JACKAudioDriver: CallbackAudioDriver, @unchecked Sendable {
    /// The JACK client: its name, its ports, the transport; register more ports (MIDI) before starting.
    package let client: JACKClient
    /// The output ports, one per channel.
    package let ports: [JACKAudioPort]
    private let connection: JACKConnection
    let process: ProcessCycle
    private let shutdownReason = LockedReason()

    /// Connects to the server and registers the ports (not yet active). Throws `.noServer` when no
    /// server is running.
    public init(settings: JACKOutputSettings = JACKOutputSettings()) throws(JACKError) {
        client = try JACKClient(name: settings.clientName, serverName: settings.serverName)
        var ports: [JACKAudioPort] = []
        for name in settings.portNames {
            ports.append(try client.registerAudioPort(named: name, direction: .output))
        }
        self.ports = ports
        connection = settings.connection
        process = ProcessCycle(ports: ports)
        try client.setProcessHandler(process)
        try client.onXrun { [process] in process.xruns.wrappingIncrement(ordering: .relaxed) }
        try client.onFreewheel { [process] on in process.freewheeling.store(on, ordering: .relaxed) }
        client.onShutdown { [process, shutdownReason] reason in
            shutdownReason.set(reason)
            process.serverGone()
        }
    }

    deinit { client.close() }

    public var sampleRate: Int { client.sampleRate }
    public var channelCount: Int { ports.count }
    /// The server's block size now.
    public var periodFrames: Int { client.bufferSize }
    /// The playback latency JACK reports for the first port's connections (0 before they are made).
    public var outputLatencyFrames: Int { ports.first?.latencyRange(.playback).maximum ?? 0 }
    public var xrunCount: Int { process.xruns.load(ordering: .relaxed) }
    /// Cycles rendered while the server freewheeled (ran faster than real time, e.g. a DAW's export).
    public var freewheelCycles: Int { process.freewheelCycles.load(ordering: .relaxed) }

    public func start(_ cycle: AudioDriverCycle) throws(AudioDriverError) {
        process.prepare(cycle: cycle, chunkFrames: periodFrames)
        do {
            try client.activate()
            try connectPorts()
            for handler in process.handlers { try handler.connectPorts(client) }
        } catch {
            client.deactivate()
            throw AudioDriverError(.cannotOpen, "JACK: \(error)", underlying: error)
        }
        // Rendering starts once the connections are in the server's graph (applied at the next cycle),
        // so the first frame is heard; at most a second is waited for a stalled server.
        process.awaitCycles(2, until: MonotonicClock.now() + 1_000_000_000)
        process.rendering.store(true, ordering: .releasing)
    }

    /// Deactivates the client (returns after the cycle in progress). JACK holds none of our audio
    /// beyond the cycle, so there is nothing to drain.
    public func stop(draining: Bool) throws(AudioDriverError) {
        process.rendering.store(false, ordering: .releasing)
        if !process.isServerGone { client.deactivate() }
    }

    public func error(for failure: AudioDriverFailure) -> AudioDriverError {
        let reason = shutdownReason.value
        return AudioDriverError(.deviceDisappeared, "the JACK server '\(client.serverDisplayName)' shut down"
                                + (reason.isEmpty ? "" : " (\(reason))"))
    }

    private func connectPorts() throws(JACKError) {
        let targets: [String]
        switch connection {
        case .none: return
        case .physicalPlayback: targets = client.ports(type: .audio, direction: .input, physicalOnly: true)
        case .matching(let pattern): targets = client.ports(matching: pattern, type: .audio, direction: .input)
        }
        for (port, target) in zip(ports, targets) {
            try client.connect(port.name, to: target)
        }
    }
}

/// The reason libjack gave when the server shut down; written on libjack's thread, read after.
final class LockedReason: Sendable {
    private let reason = Mutex("")

    func set(_ value: String) { reason.withLock { $0 = value } }
    var value: String { reason.withLock { $0 } }
}

extension JACKConnection {
    /// The connection a `--jack-connect` value names: nil is the physical playback ports, `none` none,
    /// anything else a pattern of input port names.
    public init(naming value: String?) {
        switch value {
        case nil: self = .physicalPlayback
        case "none": self = .none
        case let pattern?: self = .matching(pattern)
        }
    }
}

extension JACKOutputSettings {
    /// The output ports of a song: the mix (`out_L`, `out_R`) and, `perChannel`, a stereo pair per MIDI
    /// channel (`ch01_L`, `ch01_R`, …) beside it.
    public static func songPortNames(perChannel: Bool) -> [String] {
        let channels = perChannel ? (0..<16).flatMap { [MIDIChannel.name($0) + "_L", MIDIChannel.name($0) + "_R"] } : []
        return ["out_L", "out_R"] + channels
    }
}
