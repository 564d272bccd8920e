import ALSA
import Atomics
import MIDICore
import Sampler

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

/// Plays MIDI arriving at ALSA sequencer input ports through a `SamplerNode`: the sampler host behind
/// `seqplay live` and `seqplay serve --ports`. Any program can connect to its ports (16 channels each,
/// all playing the same sampler channels).
///
/// Data flow: a `SequencerInputThread` reads the ports → a lock-free queue → the render thread, where
/// the host is the sampler's `eventSource` and hands over each message in the block it belongs to
/// (see `LiveDelivery`). The host also listens to the system announce port: when a source is
/// disconnected from its ports, or its port or client goes away, the notes and sustain pedals that
/// source's client still holds are released (no hanging notes); ports that appear are reported by
/// `portsAppeared()` so the caller can connect them (hot-plug).
///
/// Make it, `connect` sources, then start the audio output, then `start()`. Call `calibrate()`
/// every second or so and `portsAppeared()` from the control thread. System Exclusive and system
/// messages are not played. Channel messages past the queue's 4096 slots are dropped.
public final class LiveSamplerHost: ScheduledMIDISource, @unchecked Sendable {
    /// The input ports, `in 1` … `in N`.
    public let ports: [SequencerPort]
    public let delivery: LiveDelivery
    public let client: SequencerClient

    private let periodFrames: Int
    private let stampClock: SequencerQueue?
    private let clock: QueueToSampleClock
    private let events = SingleProducerQueue<ScheduledMessage>(capacity: 4096, filler: ScheduledMessage())
    private let appeared = SingleProducerQueue<PortAddress>(capacity: 256, filler: .systemAnnounce)
    private let lateEvents = ManagedAtomic(0)
    private var input: SequencerInputThread?
    /// Used on the input thread only.
    private var held = HeldNotes()

    /// Opens `portCount` input ports named `"\(portName) 1"`… on `client` (timestamped by a queue of
    /// its own in `.timestamped` delivery), listens to announcements, and becomes `sampler`'s event
    /// source. `sampleRate` and `periodFrames` are the audio output's.
    public init(client: SequencerClient, sampler: SamplerNode, portCount: Int = 1, portName: String = "in",
                delivery: LiveDelivery, sampleRate: Int, periodFrames: Int) throws(SequencerError) {
        self.client = client
        self.delivery = delivery
        self.periodFrames = periodFrames
        clock = QueueToSampleClock(sampleRate: Double(sampleRate))
        if case .timestamped = delivery {
            stampClock = try SequencerQueue(client: client, name: "\(client.name) clock")
        } else {
            stampClock = nil
        }
        var ports: [SequencerPort] = []
        for number in 1...max(portCount, 1) {
            ports.append(try client.createPort(name: portCount == 1 ? portName : "\(portName) \(number)",
                                               capabilities: .input, types: [.midiGeneric, .synthesizer, .application],
                                               timestampQueue: stampClock))
        }
        self.ports = ports
        let announcements = try client.createPort(name: "announcements", capabilities: [.write, .noExport])
        try client.listenToAnnouncements(at: announcements)
        try stampClock?.start()
        sampler.eventSource = self
        try calibrate()
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
        let before = QueueToSampleClock.monotonicNanoseconds()
        let position = try stampClock.position()
        clock.calibrate(queueNanoseconds: position.nanoseconds, monotonicBefore: before,
                        after: QueueToSampleClock.monotonicNanoseconds())
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
            guard event.message.channel != nil else { return }
            held.update(event.message, from: event.source.client)
            events.append(ScheduledMessage(message: event.message, sampleTime: sampleTime(of: event)))
        case .announcement(.unsubscribed(let source, let destination)) where destination.client == client.clientID:
            releaseNotes(of: source.client)
        case .announcement(.portExited(let address)):
            releaseNotes(of: address.client)
        case .announcement(.clientExited(let other)):
            releaseNotes(of: other)
        case .announcement(.portStarted(let address)) where address.client != client.clientID:
            appeared.append(address)
        case .announcement:
            break
        }
    }

    private func sampleTime(of event: SequencerEvent) -> Int64 {
        guard case .timestamped(let lookAhead) = delivery, case .realTime(let nanoseconds) = event.timestamp,
              let now = clock.sampleTime(queueNanoseconds: nanoseconds) else { return ScheduledMessage.now }
        return now + Int64(lookAhead)
    }

    private func releaseNotes(of source: UInt8) {
        held.releaseAll(from: source) { events.append(ScheduledMessage(message: $0, sampleTime: ScheduledMessage.now)) }
    }

    // MARK: Render thread

    public func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        // The sampler asks for the events before the middle of its block.
        let blockStart = sampleTime - Int64(SamplerNode.blockFrames / 2)
        if case .timestamped = delivery, blockStart % Int64(periodFrames) < Int64(SamplerNode.blockFrames) {
            clock.observePeriodStart(sampleTime: blockStart - blockStart % Int64(periodFrames), periodFrames: periodFrames)
        }
        while let next = events.first, next.sampleTime < sampleTime {
            if next.sampleTime != ScheduledMessage.now, next.sampleTime < blockStart - Int64(SamplerNode.blockFrames / 2) {
                lateEvents.wrappingIncrement(ordering: .relaxed)
            }
            receiver.receive(next.message)
            _ = events.removeFirst()
        }
    }
}

/// A channel message on its way to the render thread, with the sample time to play it at.
struct ScheduledMessage {
    /// Play at the next block (immediate delivery, releases).
    static let now = Int64.min

    var message: MIDIMessage = .activeSensing
    var sampleTime: Int64 = now
}
