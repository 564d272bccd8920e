import ALSA
import Atomics
import MIDICore
import Sampler
import RealtimeSupport

/// How a `LiveSamplerHost` places arriving MIDI in the audio.
public enum LiveDelivery: Hashable, Sendable {
    /// At the next 64-frame block rendered: the lowest latency; the onset moves with the render
    /// thread's period (up to a period of jitter).
    case immediate
    /// At the kernel's arrival timestamp plus a fixed look-ahead, placed in the right 64-sample
    /// block: onsets keep the timing they were played with (jitter ≤ 64 samples), `lookAheadFrames`
    /// later. The look-ahead must exceed a period plus the input thread's wake-up time, or events
    /// come late (counted in `lateEventCount`, played at the next block).
    case timestamped(lookAheadFrames: Int)
}

/// Plays MIDI arriving at ALSA sequencer input ports through `SamplerNode`s: the sampler host behind
/// `seqplay live`, `seqplay serve --ports` and `--route alsa`. Any program can connect to its ports;
/// each port plays a sampler of its own, so every port has 16 channels of its own.
///
/// Data flow: a `SequencerInputThread` reads the ports → per port, a lock-free queue → the render
/// thread, where the port's `PortFeed` is its sampler's `eventSource` and hands over each message in
/// the block it belongs to (see `LiveDelivery`). The host also listens to the system announce port:
/// when a source is disconnected from a port, the notes and sustain pedals its client still holds at
/// that port are released; when its port or client goes away, at every port (no hanging notes). Ports
/// that appear are reported by `portsAppeared()` so the caller can connect them (hot-plug).
///
/// Make it, `connect` sources, then start the audio output, then `start()`. Call `calibrate()`
/// every second or so and `portsAppeared()` from the control thread. System Exclusive and system
/// messages are not played. Channel messages past a port queue's 4096 slots are dropped.
public final class LiveSamplerHost: @unchecked Sendable {
    /// The input ports, in the order of the samplers they play.
    public let ports: [SequencerPort]
    public let delivery: LiveDelivery
    public let client: SequencerClient

    private let feeds: [PortFeed]
    private let stampClock: SequencerQueue?
    private let clock: QueueToSampleClock
    private let appeared = SingleProducerQueue<PortAddress>(capacity: 256, filler: .systemAnnounce)
    private let lateEvents = ManagedAtomic(0)
    private var input: SequencerInputThread?

    /// Opens one input port on `client` per entry of `inputs`, named `name`, that plays `sampler`
    /// (timestamped by a queue of the client's own in `.timestamped` delivery), listens to
    /// announcements, and becomes each sampler's event source. `sampleRate` and `periodFrames` are
    /// the audio output's.
    public init(client: SequencerClient, inputs: [(name: String, sampler: SamplerNode)],
                delivery: LiveDelivery, sampleRate: Int, periodFrames: Int) throws(SequencerError) {
        self.client = client
        self.delivery = delivery
        let clock = QueueToSampleClock(sampleRate: Double(sampleRate))
        self.clock = clock
        if case .timestamped = delivery {
            stampClock = try SequencerQueue(client: client, name: "\(client.name) clock")
        } else {
            stampClock = nil
        }
        var ports: [SequencerPort] = []
        var feeds: [PortFeed] = []
        for (index, input) in inputs.enumerated() {
            ports.append(try client.createPort(name: input.name, capabilities: .input,
                                               types: [.midiGeneric, .synthesizer, .application],
                                               timestampQueue: stampClock))
            let feed = PortFeed(delivery: delivery, periodFrames: periodFrames, clock: clock,
                                observesPeriods: index == 0, lateEvents: lateEvents)
            input.sampler.eventSource = feed
            feeds.append(feed)
        }
        self.ports = ports
        self.feeds = feeds
        let announcements = try client.createPort(name: "announcements", capabilities: [.write, .noExport])
        try client.listenToAnnouncements(at: announcements)
        try stampClock?.start()
        try calibrate()
    }

    /// One input port named `portName` that plays `sampler`.
    public convenience init(client: SequencerClient, sampler: SamplerNode, portName: String = "in",
                            delivery: LiveDelivery, sampleRate: Int, periodFrames: Int) throws(SequencerError) {
        try self.init(client: client, inputs: [(portName, sampler)], delivery: delivery,
                      sampleRate: sampleRate, periodFrames: periodFrames)
    }

    deinit {
        stop()
    }

    /// Connects `source` to the first input port.
    public func connect(from source: PortAddress) throws(SequencerError) {
        try client.connect(from: source, to: ports[0].address)
    }

    /// Starts reading the ports.
    public func start() throws(SequencerError) {
        guard input == nil else { return }
        input = try SequencerInputThread(reading: client) { [unowned self] in self.handle($0) }
    }

    /// Stops reading the ports.
    public func stop() {
        input?.stop()
        input = nil
    }

    /// Measures the timestamp queue's clock against the system clock again (timestamped delivery).
    public func calibrate() throws(SequencerError) {
        guard let stampClock else { return }
        let before = Int64(MonotonicClock.now())
        let position = try stampClock.position()
        clock.calibrate(queueNanoseconds: position.nanoseconds, monotonicBefore: before,
                        after: Int64(MonotonicClock.now()))
    }

    /// Ports that started since the last call (from the announce port), for hot-plug.
    public func portsAppeared() -> [PortAddress] {
        var found: [PortAddress] = []
        while let address = appeared.removeFirst() { found.append(address) }
        return found
    }

    /// Timestamped events that arrived too late for their block and were played at the next one.
    public var lateEventCount: Int { lateEvents.load(ordering: .relaxed) }

    // MARK: Input thread

    private func handle(_ input: SequencerInput) {
        switch input {
        case .midi(let event):
            guard event.message.channel != nil, let feed = feed(at: event.port) else { return }
            feed.add(event.message, from: event.source.client, sampleTime: sampleTime(of: event))
        case .announcement(.unsubscribed(let source, let destination)) where destination.client == client.clientID:
            feed(at: destination.port)?.releaseNotes(of: source.client)
        case .announcement(.portExited(let address)):
            for feed in feeds { feed.releaseNotes(of: address.client) }
        case .announcement(.clientExited(let other)):
            for feed in feeds { feed.releaseNotes(of: other) }
        case .announcement(.portStarted(let address)) where address.client != client.clientID:
            appeared.append(address)
        case .announcement:
            break
        }
    }

    /// The feed of this client's port number `port`; `nil` for the announcements port.
    private func feed(at port: UInt8) -> PortFeed? {
        ports.firstIndex { $0.address.port == port }.map { feeds[$0] }
    }

    private func sampleTime(of event: SequencerEvent) -> Int64 {
        guard case .timestamped(let lookAhead) = delivery, case .realTime(let nanoseconds) = event.timestamp,
              let now = clock.sampleTime(queueNanoseconds: nanoseconds) else { return ScheduledMessage.now }
        return now + Int64(lookAhead)
    }
}
