import Atomics
import AudioGraph
import AudioOutput
import Foundation
import JACK

/// Where the output ports are connected when the client starts.
public enum JACKConnection: Equatable, Sendable {
    /// Port i to the i-th physical playback port (the sound card behind the server), as far as there are.
    case physicalPlayback
    /// Port i to the i-th port whose name matches this extended regular expression (`^ardour:Audio 1/`).
    case matching(String)
    /// Not connected: a patchbay or the DAW connects them.
    case none
}

/// How a `JACKAudioOutput` presents itself to the server.
public struct JACKOutputSettings: Sendable {
    /// The client name (`seqplay`); the server appends a number when it is taken.
    public var clientName = "seqplay"
    /// The server to use; nil: `$JACK_DEFAULT_SERVER`, else the default server.
    public var serverName: String?
    /// One mono output port per engine channel, in channel order.
    public var portNames = ["out_L", "out_R"]
    /// What the ports are connected to once active.
    public var connection = JACKConnection.physicalPlayback

    public init(clientName: String = "seqplay", serverName: String? = nil, portNames: [String] = ["out_L", "out_R"],
                connection: JACKConnection = .physicalPlayback) {
        self.clientName = clientName
        self.serverName = serverName
        self.portNames = portNames
        self.connection = connection
    }
}

/// Real-time output to a JACK server (jackd2, or PipeWire's JACK API): the engine renders in JACK's
/// process callback, into one output port per channel. The sample rate and block size are the
/// server's. Each cycle renders exactly the frames JACK asks for, so the sampler's event timing is
/// the same at any block size; a block larger than the engine's maximum is rendered in pieces.
///
/// When the server shuts down (or drops the client) playback ends with `.driverFailed` and the
/// `onEnd` handler runs, on a thread of libjack's.
public final class JACKAudioOutput: RealtimeAudioOutput, @unchecked Sendable {
    /// The JACK client: for its name, its ports, the transport, and more ports (MIDI) before `start`.
    public let client: JACKClient
    /// The output ports, one per channel.
    public let ports: [JACKAudioPort]
    private let connection: JACKConnection
    private let cycle: RenderCycle
    private let state = JACKOutputState()
    private var onEnd: (@Sendable (PlaybackEnd) -> Void)?
    private var started = false

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
        cycle = RenderCycle(ports: ports, state: state)
        try client.setProcessHandler(cycle)
        try client.onXrun { [state] in state.xruns.wrappingIncrement(ordering: .relaxed) }
        client.onShutdown { [weak self] reason in self?.serverWentAway(reason) }
    }

    deinit {
        client.deactivate()
        client.close()
    }

    public var sampleRate: Int { client.sampleRate }
    public var channelCount: Int { ports.count }
    /// The server's block size now.
    public var periodFrames: Int { client.bufferSize }
    public var sampleTime: Int64 { state.framesPlayed.load(ordering: .relaxed) }
    public var xrunCount: Int { state.xruns.load(ordering: .relaxed) }
    public var isPaused: Bool { state.paused.load(ordering: .relaxed) }
    /// JACK runs the render thread; its scheduling is the server's.
    public var scheduling: RenderThreadScheduling? { nil }
    /// Cycles rendered in freewheel mode (the server running faster than real time, e.g. a DAW's export).
    public var freewheelCycles: Int { state.freewheelCycles.load(ordering: .relaxed) }

    public func start(engine: AudioEngine, source: (any RealtimeRenderSource)?, frameCount: Int64?,
                      onEnd: (@Sendable (PlaybackEnd) -> Void)?) throws(AudioOutputError) {
        guard !started else { throw .alreadyStarted }
        try engine.prepareForRealtimeOutput(sampleRate: sampleRate, channelCount: channelCount, periodFrames: periodFrames)
        self.onEnd = onEnd
        state.reset()
        cycle.prepare(source: source ?? engine, maximumFrames: engine.maximumFrameCount, frameLimit: frameCount)
        do {
            try client.onFreewheel { [state] on in state.freewheeling.store(on, ordering: .relaxed) }
            try client.activate()
            try connectPorts()
        } catch {
            client.deactivate()
            throw .driverFailed("JACK: \(error)")
        }
        started = true
        // Rendering starts once the connections are in the server's graph (it applies them at the next
        // cycle), so the first frame is heard; at most a second is waited for a stalled server.
        let connectedAt = state.cycles.load(ordering: .acquiring)
        for _ in 0..<500 where state.cycles.load(ordering: .acquiring) < connectedAt + 2 { usleep(2_000) }
        state.rendering.store(true, ordering: .releasing)
    }

    public func pause() { state.paused.store(true, ordering: .relaxed) }
    public func resume() { state.paused.store(false, ordering: .relaxed) }

    /// Stops rendering after the cycle in progress and deactivates the client. `draining` has nothing
    /// to wait for: JACK holds no buffer of ours beyond the cycle.
    @discardableResult
    public func stop(draining: Bool = false) -> PlaybackEnd {
        guard started else { return state.end ?? .stopped }
        state.stopRequested.store(true, ordering: .releasing)
        return finish()
    }

    @discardableResult
    public func waitUntilEnded() -> PlaybackEnd {
        guard started else { return state.end ?? .stopped }
        while !state.completed.load(ordering: .acquiring) && !state.stopRequested.load(ordering: .acquiring)
            && state.end == nil {
            usleep(2_000)
        }
        return finish()
    }

    /// Waits (at most a second) for the process callback to leave the engine, then deactivates.
    private func finish() -> PlaybackEnd {
        started = false
        if state.end == nil {
            for _ in 0..<500 where !state.released.load(ordering: .acquiring) { usleep(2_000) }
            client.deactivate()
        }
        let end = state.finish(completed: state.completed.load(ordering: .acquiring))
        return end
    }

    private func serverWentAway(_ reason: String) {
        let end = PlaybackEnd.driverFailed("the JACK server '\(client.serverDisplayName)' shut down" + (reason.isEmpty ? "" : " (\(reason))"))
        if state.setEnd(end) { onEnd?(end) }
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
        // One physical port for two channels: the mono device gets the left channel only, as JACK clients do.
    }
}

/// The flags and counters the control thread, JACK's process thread and its notification thread share.
final class JACKOutputState: @unchecked Sendable {
    /// Raised once the ports are connected: until then the process callback plays silence.
    let rendering = ManagedAtomic(false)
    let stopRequested = ManagedAtomic(false)
    /// Set by the process callback once it has seen `stopRequested` and no longer touches the engine.
    let released = ManagedAtomic(false)
    let completed = ManagedAtomic(false)
    let paused = ManagedAtomic(false)
    let freewheeling = ManagedAtomic(false)
    let freewheelCycles = ManagedAtomic(0)
    let framesPlayed = ManagedAtomic<Int64>(0)
    let xruns = ManagedAtomic(0)
    /// Process cycles run since activation.
    let cycles = ManagedAtomic(0)
    private let endLock = NSLock()
    private var storedEnd: PlaybackEnd?

    var end: PlaybackEnd? { endLock.withLock { storedEnd } }

    /// Records how playback ended unless that is known already; true when this call recorded it.
    func setEnd(_ end: PlaybackEnd) -> Bool {
        endLock.withLock {
            guard storedEnd == nil else { return false }
            storedEnd = end
            return true
        }
    }

    func finish(completed: Bool) -> PlaybackEnd {
        _ = setEnd(completed ? .completed : .stopped)
        return end ?? .stopped
    }

    func reset() {
        for flag in [rendering, stopRequested, released, completed, freewheeling] { flag.store(false, ordering: .relaxed) }
        framesPlayed.store(0, ordering: .relaxed)
        xruns.store(0, ordering: .relaxed)
        freewheelCycles.store(0, ordering: .relaxed)
        cycles.store(0, ordering: .relaxed)
        endLock.withLock { storedEnd = nil }
    }
}
