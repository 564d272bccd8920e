import ALSA
import AudioFiles
import AudioGraph
import Foundation
import LiveInput
import LV2
import NetworkMIDI
import SeqplaySupport
import Sampler
import Synchronization

/// A live sampler host in a few lines: SoundFont samplers playing what arrives at ALSA input ports
/// and/or from network MIDI peers, to the sound card or (on a clock) to a recording; the engine of
/// `seqplay live` and `seqplay serve`.
///
///     var configuration = LiveSamplerConfiguration(soundFonts: ["piano.sf2"],
///                                                 output: .soundCard(device: "default", settings: .init(sampleRate: 48_000)))
///     configuration.portNames = ["in"]
///     configuration.connect = .hardware
///     let session = try LiveSamplerSession(configuration)
///     try session.start()
///     …
///     let summary = session.stop()
///
/// One `LiveMIDIInput` takes every producer: the ports (port *i* plays sampler *i*), the network
/// session (its own sampler, after the ports') and `configuration.inputs` (a sampler each, after those). While it plays, a control thread of its own follows
/// the clocks once a second (the kernel queue's, the sound card's) and connects sources that appear
/// (hot-plug, `configuration.connect`).
public final class LiveSamplerSession: Sendable {
    public let configuration: LiveSamplerConfiguration
    public let engine = AudioEngine()
    /// One per port, then the network's.
    public let samplers: [SamplerNode]
    /// The LV2 instruments of `configuration.instruments`, in order (their work on a worker thread).
    public let instruments: [LV2InstrumentNode]
    public let output: RealtimeOutput
    package let input: LiveMIDIInput
    /// The ALSA input ports (nil without `portNames`).
    public let ports: SequencerLiveProducer?
    /// The network session (nil without `network`); opened by `start()`.
    public var network: NetworkLiveProducer? { networkProducer.withLock { $0 } }
    private let networkProducer = Mutex<NetworkLiveProducer?>(nil)
    public let recorder: RecorderTap?
    /// How the ports' events are placed in the audio.
    package let portDelivery: LiveDelivery
    /// Called on the control thread for each source connected by `configuration.connect` (or that
    /// could not be).
    public var onConnection: (@Sendable (PortAddress, SequencerError?) -> Void)? {
        get { reports.withLock { $0.connection } }
        set { reports.withLock { $0.connection = newValue } }
    }
    /// Called when a network peer's ALSA port is added or removed.
    public var onBridgePortChange: (@Sendable (NetworkALSABridge.PortChange) -> Void)? {
        get { reports.withLock { $0.bridgePortChange } }
        set { reports.withLock { $0.bridgePortChange = newValue } }
    }
    private let reports = Mutex<(connection: (@Sendable (PortAddress, SequencerError?) -> Void)?,
                                 bridgePortChange: (@Sendable (NetworkALSABridge.PortChange) -> Void)?)>((nil, nil))

    /// The thread that connects appearing sources and calibrates the clocks (`runControlThread`).
    private let control = ServiceThread()

    /// What a session did, reported by `stop()`.
    public struct Summary: Sendable {
        /// Timestamped events that came too late for their block (played at the next one).
        public var lateEvents: Int
        /// Messages dropped because a producer's queue was full.
        public var droppedMessages: Int
        public var underruns: Int
        /// How long the output's renders of its periods took: a render longer than its period is an underrun
        /// seqplay's own work made.
        public var renderTimes = RenderTimes()
        /// How much faster than the system clock the output's clock ran, in parts per million, as the
        /// live-input clock model measured it (nil: not measured, e.g. stopped within a second).
        public var outputClockPPM: Double?
        public var recording: RecorderTap.Summary?
        /// Why playing ended early, if it did.
        public var failure: LiveSamplerError?
    }

    /// Loads the fonts into a sampler per port (and one for the network), opens the output and the
    /// ports. Nothing plays until `start()`.
    public init(_ configuration: LiveSamplerConfiguration) throws(LiveSamplerError) {
        self.configuration = configuration
        let samplerCount = configuration.portNames.count + (configuration.network == nil ? 0 : 1) + configuration.inputs.count
        guard samplerCount > 0 else { throw .noInput }
        switch configuration.output {
        case .soundCard(let device, let settings):
            do {
                output = try ALSAOutput(deviceName: device, settings: settings)
            } catch {
                throw .output(error)
            }
            recorder = nil
        case .recording(let path, let sampleRate):
            output = NullOutput(sampleRate: sampleRate)
            recorder = RecorderTap(path: path)
        case .opened(let opened):
            output = opened
            recorder = nil
        }
        var samplers: [SamplerNode] = []
        let settings = configuration.sampler
        for _ in 0..<samplerCount {
            let sampler: SamplerNode
            do {
                sampler = try SamplerNode(settings: settings, sampleRate: Double(output.sampleRate))
            } catch {
                throw .synthesizer(error)
            }
            for font in settings.fontLoadOrder(configuration.soundFonts) {
                do {
                    try sampler.loadSoundFont(at: font)
                } catch {
                    throw .soundFont(error)
                }
            }
            do {
                try sampler.apply(settings)
            } catch {
                throw .synthesizer(error)
            }
            engine.attach(sampler)
            engine.connect(sampler, to: engine.mainMixerNode)
            samplers.append(sampler)
        }
        self.samplers = samplers
        instruments = configuration.instruments.map { assignment in
            let node = LV2InstrumentNode(settings: assignment.settings, channels: assignment.channels)
            node.workerMode = .thread
            return node
        }
        for node in instruments {
            engine.attach(node)
            engine.connect(node, to: engine.mainMixerNode)
        }
        if let recorder { engine.mainMixerNode.installTap(recorder, at: .output(bus: 0)) }
        portDelivery = Self.portDelivery(configuration, output)
        input = LiveMIDIInput(destinationCount: samplerCount + instruments.count, sampleRate: output.sampleRate,
                              periodFrames: output.periodFrames)
        for (sampler, destination) in zip(samplers, input.destinations) { sampler.eventSource = destination }
        // Each instrument has a destination of its own after the samplers', which every source's messages on
        // its channels go to; it says when each is due, so they play on their frames.
        for (index, (node, assignment)) in zip(instruments, configuration.instruments).enumerated() {
            let destination = input.destinations[samplerCount + index]
            destination.reportsDueTimes = true
            node.eventSource = destination
            input.route(channels: assignment.channels, to: samplerCount + index)
        }
        let firstInputDestination = samplerCount - configuration.inputs.count
        for (index, extra) in configuration.inputs.enumerated() {
            do {
                try extra.attach(to: input, destination: firstInputDestination + index, output: output)
            } catch {
                throw .input(name: extra.name, underlying: error)
            }
        }
        if configuration.portNames.isEmpty {
            ports = nil
        } else {
            do {
                let client = try SequencerClient(name: configuration.clientName)
                ports = try SequencerLiveProducer(client: client, portNames: configuration.portNames, feeding: input,
                                                  delivery: portDelivery)
            } catch {
                throw .sequencer(error)
            }
        }
    }

    /// How `configuration`'s ports place their events in `output`'s audio.
    private static func portDelivery(_ configuration: LiveSamplerConfiguration, _ output: RealtimeOutput) -> LiveDelivery {
        guard configuration.timestampedPorts else { return .immediate }
        let frames = configuration.portLookAheadSeconds.map { Int($0 * Double(output.sampleRate)) }
            ?? output.periodFrames + output.sampleRate / 500
        return .timestamped(lookAheadFrames: frames)
    }

    /// The network's look-ahead after the session's own playout time: two periods, so an event the
    /// playout thread hands over at its time still reaches the block that plays it.
    public var networkLookAheadFrames: Int { 2 * output.periodFrames }

    /// Starts the output (and recording), the ports, the network session and the control thread.
    public func start() throws(LiveSamplerError) {
        do {
            try output.start(engine: engine)
        } catch {
            throw .output(error)
        }
        do {
            try recorder?.start()
        } catch {
            output.stop()
            throw .recording(path: recorder!.path, underlying: error)
        }
        do {
            try ports?.start()
        } catch {
            abandonStart()
            throw .sequencer(error)
        }
        if let network = configuration.network {
            do {
                let producer = try NetworkLiveProducer(
                    configuration: network, feeding: input, destination: configuration.portNames.count,
                    lookAheadFrames: networkLookAheadFrames, bridge: configuration.networkPeersAsALSAPorts ? bridge() : nil,
                    onBridgePortChange: onBridgePortChange)
                networkProducer.withLock { $0 = producer }
            } catch {
                abandonStart()
                throw .network(error)
            }
        }
        if let ports, let filter = configuration.connect {
            for source in filter.sources(seenBy: ports.client) { connect(source) }
        }
        control.start(name: "live sampler control") { [unowned self] in self.runControlThread() }
    }

    /// Connects `source` to the first port (reported to `onConnection`).
    public func connect(_ source: PortAddress) {
        guard let ports else { return }
        do {
            try ports.connect(from: source)
            onConnection?(source, nil)
        } catch {
            onConnection?(source, error)
        }
    }

    /// Stops the producers (the network session says goodbye, releasing its peers' notes), the
    /// output and the recording; returns what happened.
    @discardableResult
    public func stop() -> Summary {
        control.stop()
        stopProducers()
        // A recording keeps all that was played before the stop (the peers' releases included): the output
        // renders on until every message received is due, also when the render lags the clock.
        let end = recorder == nil ? output.stop()
            : output.stop(afterFrame: input.dueSampleTimeOfReceivedMessages(outputSampleTime: output.sampleTime))
        var summary = Summary(lateEvents: input.lateEventCount, droppedMessages: input.droppedCount,
                              underruns: output.xrunCount, outputClockPPM: input.clock.measuredRateRatio.map { ($0 - 1) * 1e6 })
        summary.renderTimes = output.renderTimes
        if case .failed(let error) = end { summary.failure = .deviceFailed(error) }
        if let recorder {
            do {
                summary.recording = try recorder.stop()
            } catch {
                summary.failure = .recording(path: recorder.path, underlying: error)
            }
        }
        return summary
    }

    /// Undoes a start that failed half-way: the recording is abandoned, so a file at its path is
    /// left as it was.
    private func abandonStart() {
        stopProducers()
        output.stop()
        recorder?.cancel()
    }

    private func stopProducers() {
        ports?.stop()
        network?.stop()
        configuration.inputs.forEach { $0.stop() }
    }

    /// Where there is a sequencer, a bridge showing network peers as ports of a client of the
    /// session's name (or "NAME network" beside input ports of that name).
    private func bridge() -> NetworkALSABridge? {
        try? NetworkALSABridge(clientName: configuration.portNames.isEmpty ? configuration.clientName
                                                                            : "\(configuration.clientName) network")
    }

    /// Once a second: the clocks; every 20 ms: sources that appeared.
    private func runControlThread() {
        var lastCalibration = MonotonicClock.now()
        // Periods, not polls for something awaited: the sequencer announces new ports to no one of ours.
        while !control.waitForStop(nanoseconds: 20_000_000) {
            if let ports {
                for address in ports.portsAppeared() where configuration.connect?.accepts(address, seenBy: ports.client) == true {
                    connect(address)
                }
            }
            if MonotonicClock.now() - lastCalibration >= 1_000_000_000 {
                try? ports?.calibrate()
                input.update()
                lastCalibration = MonotonicClock.now()
            }
        }
    }
}
