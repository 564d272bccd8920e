import ALSA
import LiveInput
import MIDICore
import SeqplaySupport

/// ALSA sequencer input ports as a producer of a `LiveMIDIInput`: port *i* feeds destination
/// `firstDestination + i`. Any program can connect to the ports.
///
/// A `SequencerInputThread` reads the ports and pushes each channel message into the producer's
/// queues, stamped with the kernel's arrival time on a queue of the client's own (timestamped
/// delivery) and released per source client: when a source is disconnected from a port, the notes
/// and pedals its client still holds there are released; when its port or client goes away, at every
/// port. Ports that appear are reported by `portsAppeared()` so the caller can connect them
/// (hot-plug). System Exclusive and system messages are not played.
// Why unchecked: the input thread is its producer's one thread; start/stop come from one control thread; appearing ports cross in a lock-free queue.
public final class SequencerLiveProducer: @unchecked Sendable {
    /// The input ports, in the order of their destinations.
    public let ports: [SequencerPort]
    public let client: SequencerClient
    package let producer: LiveInputProducer
    private let firstDestination: Int
    private let stampClock: SequencerQueue?
    private let appeared = SingleProducerQueue<PortAddress>(capacity: 256, filler: .systemAnnounce)
    private var input: SequencerInputThread?

    /// Opens one input port on `client` per name in `portNames` (timestamped by a queue of the
    /// client's own for `.timestamped` delivery), and listens to announcements.
    package init(client: SequencerClient, portNames: [String], feeding input: LiveMIDIInput, delivery: LiveDelivery,
                firstDestination: Int = 0) throws(SequencerError) {
        precondition(firstDestination + portNames.count <= input.destinations.count, "a port without a destination")
        self.client = client
        self.firstDestination = firstDestination
        if case .timestamped = delivery {
            stampClock = try SequencerQueue(client: client, name: "\(client.name) clock")
        } else {
            stampClock = nil
        }
        var ports: [SequencerPort] = []
        for name in portNames {
            ports.append(try client.createPort(name: name, capabilities: .input,
                                               types: [.midiGeneric, .synthesizer, .application],
                                               timestampQueue: stampClock))
        }
        self.ports = ports
        producer = input.addProducer(name: "ALSA ports of \(client.name)", delivery: delivery)
        let announcements = try client.createPort(name: "announcements", capabilities: [.write, .noExport])
        try client.listenToAnnouncements(at: announcements)
        try stampClock?.start()
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

    /// Measures the timestamp queue's clock against the monotonic clock again (timestamped delivery);
    /// about once a second, from the control thread.
    public func calibrate() throws(SequencerError) {
        guard let stampClock else { return }
        let before = MonotonicClock.now()
        let position = try stampClock.position()
        let after = MonotonicClock.now()
        producer.calibrate(producerTime: Int64(position.nanoseconds), monotonic: before + (after - before) / 2)
    }

    /// Ports that started since the last call (from the announce port), for hot-plug.
    public func portsAppeared() -> [PortAddress] {
        var found: [PortAddress] = []
        while let address = appeared.removeFirst() { found.append(address) }
        return found
    }

    // MARK: Input thread

    private func handle(_ input: SequencerInput) {
        switch input {
        case .midi(let event):
            guard event.message.channel != nil, let destination = destination(of: event.port) else { return }
            var time = LiveTimestamp.immediate
            if stampClock != nil, case .realTime(let nanoseconds) = event.timestamp { time = .producerClock(Int64(nanoseconds)) }
            producer.push(event.message, at: time, from: UInt32(event.source.client), to: destination)
        case .announcement(.unsubscribed(let source, let destination)) where destination.client == client.clientID:
            if let index = self.destination(of: destination.port) { producer.sourceLeft(UInt32(source.client), at: index) }
        case .announcement(.portExited(let address)):
            producer.sourceLeft(UInt32(address.client))
        case .announcement(.clientExited(let other)):
            producer.sourceLeft(UInt32(other))
        case .announcement(.portStarted(let address)) where address.client != client.clientID:
            appeared.append(address)
        case .announcement:
            break
        }
    }

    /// The destination of this client's port number `port`; `nil` for the announcements port.
    private func destination(of port: UInt8) -> Int? {
        ports.firstIndex { $0.address.port == port }.map { firstDestination + $0 }
    }
}
