import CALSA
import MIDICore
#if canImport(Glibc)
import Glibc
#endif

/// One of this client's own sequencer ports, as `SequencerClient.createPort` made it.
public struct SequencerPort: Hashable, Sendable {
    /// The port's number within this client.
    public let number: UInt8
    /// The port's full address, `client:port`, as other clients see it.
    public let address: PortAddress
}

/// An open connection to the ALSA sequencer (/dev/snd/seq) as a named client: this program as it
/// appears in `aconnect -l`. Creates ports, lists every client and port, resolves and connects
/// addresses, sends MIDI messages now or on a queue, and reads what arrives at its ports.
///
/// Output (`send`, `flush`) and input (`nextEvent`, or a `SequencerInputThread`) may run on two
/// different threads; each side itself is for one thread at a time.
public final class SequencerClient {
    /// Path of the kernel's sequencer device; missing when the kernel has no (loaded) sequencer.
    public static let devicePath = "/dev/snd/seq"

    /// This client's number (128 and up for user clients).
    public let clientID: UInt8
    /// The name this client shows other clients.
    public let name: String

    let handle: OpaquePointer
    /// Reassembles System Exclusive messages the kernel delivers in pieces; used by the reading side only.
    var inputDecoder = SequencerEventDecoder()
    private var pollDescriptors: [pollfd]

    /// Opens the sequencer for input and output and names this client `name`. Throws
    /// `SequencerError.notAvailable` when there is no sequencer; alsa-lib prints nothing either way.
    public init(name: String) throws(SequencerError) {
        SoundCards.silenceLibraryMessages()
        var opened: OpaquePointer?
        let result = snd_seq_open(&opened, "default", Int32(SND_SEQ_OPEN_DUPLEX), 0)
        guard result == 0, let opened else {
            if access(Self.devicePath, F_OK) != 0 {
                throw .notAvailable(reason: "\(Self.devicePath) does not exist: the kernel has no sound support "
                                    + "or the snd-seq module is not loaded")
            }
            throw .notAvailable(reason: "cannot open \(Self.devicePath): \(alsaReason(result))")
        }
        handle = opened
        self.name = name
        snd_seq_set_client_name(opened, name)
        clientID = UInt8(truncatingIfNeeded: snd_seq_client_id(opened))
        let count = snd_seq_poll_descriptors_count(opened, Int16(POLLIN))
        pollDescriptors = Array(repeating: pollfd(), count: Int(max(count, 0)))
        pollDescriptors.withUnsafeMutableBufferPointer { buffer in
            _ = snd_seq_poll_descriptors(opened, buffer.baseAddress, UInt32(buffer.count), Int16(POLLIN))
        }
    }

    deinit {
        snd_seq_close(handle)
    }

    // MARK: Ports

    /// Creates a port named `name`. `timestampQueue` makes the kernel stamp every event arriving at the
    /// port with that queue's real time (`SequencerEvent.timestamp`).
    public func createPort(name: String, capabilities: PortCapabilities,
                           types: PortTypes = [.midiGeneric, .application],
                           timestampQueue: SequencerQueue? = nil) throws(SequencerError) -> SequencerPort {
        var info: OpaquePointer?
        try checkSequencerCall(snd_seq_port_info_malloc(&info), "snd_seq_port_info_malloc")
        defer { snd_seq_port_info_free(info) }
        snd_seq_port_info_set_name(info, name)
        snd_seq_port_info_set_capability(info, capabilities.rawValue)
        snd_seq_port_info_set_type(info, types.rawValue)
        snd_seq_port_info_set_midi_channels(info, 16)
        if let timestampQueue {
            snd_seq_port_info_set_timestamping(info, 1)
            snd_seq_port_info_set_timestamp_real(info, 1)
            snd_seq_port_info_set_timestamp_queue(info, Int32(timestampQueue.id))
        }
        try checkSequencerCall(snd_seq_create_port(handle, info), "snd_seq_create_port '\(name)'")
        let number = UInt8(truncatingIfNeeded: snd_seq_port_info_get_port(info))
        return SequencerPort(number: number, address: PortAddress(client: clientID, port: number))
    }

    /// Removes one of this client's ports (its connections go with it).
    public func deletePort(_ port: SequencerPort) throws(SequencerError) {
        try checkSequencerCall(snd_seq_delete_port(handle, Int32(port.number)), "snd_seq_delete_port")
    }

    // MARK: Addresses and connections

    /// Reads a port address the way every ALSA tool writes it: `"14:0"`, `"Midi Through:0"`, or a client
    /// name alone (port 0; a unique prefix of the name is enough), and checks that the port exists.
    public func resolve(_ text: String) throws(SequencerError) -> PortAddress {
        guard !text.isEmpty, !text.hasSuffix(":") else { throw .invalidAddress(text) }
        var address = snd_seq_addr_t()
        let parsed = snd_seq_parse_address(handle, &address, text)
        guard parsed == 0 else {
            throw .unknownPort(address: text, reason: "no client has this number or name")
        }
        let result = PortAddress(client: address.client, port: address.port)
        guard portInfo(result) != nil else {
            throw .unknownPort(address: text, reason: "no port \(result) exists")
        }
        return result
    }

    /// Connects `source` to `destination`: from now on the kernel delivers everything `source` sends to
    /// its subscribers to `destination` too (what `aconnect SRC DST` does).
    public func connect(from source: PortAddress, to destination: PortAddress) throws(SequencerError) {
        try changeSubscription(from: source, to: destination, subscribe: true)
    }

    /// Removes the connection `source` → `destination` (what `aconnect -d SRC DST` does).
    public func disconnect(from source: PortAddress, to destination: PortAddress) throws(SequencerError) {
        try changeSubscription(from: source, to: destination, subscribe: false)
    }

    private func changeSubscription(from source: PortAddress, to destination: PortAddress,
                                    subscribe: Bool) throws(SequencerError) {
        var subscription: OpaquePointer?
        try checkSequencerCall(snd_seq_port_subscribe_malloc(&subscription), "snd_seq_port_subscribe_malloc")
        defer { snd_seq_port_subscribe_free(subscription) }
        var sender = snd_seq_addr_t(client: source.client, port: source.port)
        var receiver = snd_seq_addr_t(client: destination.client, port: destination.port)
        snd_seq_port_subscribe_set_sender(subscription, &sender)
        snd_seq_port_subscribe_set_dest(subscription, &receiver)
        if subscribe {
            if snd_seq_get_port_subscription(handle, subscription) == 0 {
                throw .connectionFailed(source: source, destination: destination, reason: "already connected")
            }
            let result = snd_seq_subscribe_port(handle, subscription)
            guard result == 0 else {
                throw .connectionFailed(source: source, destination: destination, reason: alsaReason(result))
            }
        } else {
            if snd_seq_get_port_subscription(handle, subscription) != 0 {
                throw .connectionFailed(source: source, destination: destination, reason: "not connected")
            }
            let result = snd_seq_unsubscribe_port(handle, subscription)
            guard result == 0 else {
                throw .connectionFailed(source: source, destination: destination, reason: alsaReason(result))
            }
        }
    }

    // MARK: Output

    /// Sends `message` from `port` to `destination` at once, bypassing queues and buffers.
    public func send(_ message: MIDIMessage, from port: SequencerPort,
                     to destination: SequencerDestination = .subscribers) throws(SequencerError) {
        let result = sendImmediately(message, from: port.number, to: destination)
        guard result >= 0 else { throw sendError(message, code: result) }
    }

    /// Schedules `message` from `port` to `destination` at `time` on `queue`. Events are buffered: call
    /// `flush()` to hand them to the kernel (a full buffer is handed over by itself, waiting while the
    /// kernel's pool is full).
    public func send(_ message: MIDIMessage, from port: SequencerPort, to destination: SequencerDestination = .subscribers,
                     at time: EventTime, on queue: SequencerQueue) throws(SequencerError) {
        var event = snd_seq_event_t()
        SequencerEventEncoder.address(&event, from: port.number, to: destination)
        SequencerEventEncoder.schedule(&event, at: time, queue: queue.id)
        let result = SequencerEventEncoder.withEncoded(message, in: &event) { snd_seq_event_output(handle, $0) }
        guard result >= 0 else { throw sendError(message, code: result) }
    }

    /// Hands every buffered event to the kernel, waiting while the kernel's pool is full.
    public func flush() throws(SequencerError) {
        try checkSequencerCall(snd_seq_drain_output(handle), "snd_seq_drain_output")
    }

    /// Discards scheduled events not yet delivered: those still buffered here and those waiting in the
    /// kernel on `queue` (for stop and seek).
    public func dropPendingOutput(on queue: SequencerQueue) throws(SequencerError) {
        snd_seq_drop_output(handle)
        var removal: OpaquePointer?
        try checkSequencerCall(snd_seq_remove_events_malloc(&removal), "snd_seq_remove_events_malloc")
        defer { snd_seq_remove_events_free(removal) }
        snd_seq_remove_events_set_condition(removal, UInt32(SND_SEQ_REMOVE_OUTPUT | SND_SEQ_REMOVE_IGNORE_OFF))
        snd_seq_remove_events_set_queue(removal, Int32(queue.id))
        try checkSequencerCall(snd_seq_remove_events(handle, removal), "snd_seq_remove_events")
    }

    /// Sends directly; returns alsa-lib's result (negative errno on failure) without allocating, for
    /// real-time callers.
    func sendImmediately(_ message: MIDIMessage, from port: UInt8, to destination: SequencerDestination) -> Int32 {
        var event = snd_seq_event_t()
        SequencerEventEncoder.address(&event, from: port, to: destination)
        event.queue = UInt8(SND_SEQ_QUEUE_DIRECT)
        return SequencerEventEncoder.withEncoded(message, in: &event) { snd_seq_event_output_direct(handle, $0) }
    }

    private func sendError(_ message: MIDIMessage, code: Int32) -> SequencerError {
        if code == SequencerEventEncoder.malformedSystemExclusive {
            return .unsendableMessage("a System Exclusive message must start with F0 and end with F7")
        }
        return .callFailed(call: "sending \(message)", reason: alsaReason(code))
    }

    // MARK: Input

    /// The next MIDI message that arrived at one of this client's ports, waiting up to `timeout`
    /// milliseconds (`nil`: as long as it takes; 0 or less: only what is already there; at most
    /// `Int32.max`, about 24 days, per call). Returns `nil` when nothing arrived in time.
    /// Announcements and other non-MIDI events (queue control) are skipped.
    public func nextEvent(timeoutMilliseconds timeout: Int? = nil) throws(SequencerError) -> SequencerEvent? {
        while true {
            switch try nextInput(timeoutMilliseconds: timeout) {
            case .midi(let event): return event
            case .announcement: continue
            case nil: return nil
            }
        }
    }

    /// The next MIDI message or system announcement that arrived at one of this client's ports,
    /// waiting up to `timeout` milliseconds as `nextEvent` does. Other non-MIDI events are skipped.
    public func nextInput(timeoutMilliseconds timeout: Int? = nil) throws(SequencerError) -> SequencerInput? {
        while true {
            if snd_seq_event_input_pending(handle, 0) == 0 {
                let ready = pollDescriptors.withUnsafeMutableBufferPointer { buffer in
                    poll(buffer.baseAddress, nfds_t(buffer.count), timeout.map { Int32(clamping: max(0, $0)) } ?? -1)
                }
                if ready == 0 { return nil }
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw .callFailed(call: "poll", reason: String(cString: strerror(errno)))
                }
            }
            var received: UnsafeMutablePointer<snd_seq_event_t>?
            let result = snd_seq_event_input(handle, &received)
            if result == -EAGAIN || result == -EINTR { continue }
            if result == -ENOSPC { continue }  // the kernel dropped events on overflow; keep reading
            try checkSequencerCall(result, "snd_seq_event_input")
            guard let received else { continue }
            if let announcement = SequencerAnnouncement(received) { return .announcement(announcement) }
            if let event = inputDecoder.decode(received) { return .midi(event) }
        }
    }

    /// Connects the system announce port to `port`, so client, port and connection changes arrive
    /// there as `SequencerInput.announcement`s (the port needs `.write`).
    public func listenToAnnouncements(at port: SequencerPort) throws(SequencerError) {
        try connect(from: .systemAnnounce, to: port.address)
    }

    /// The file descriptors to poll for input, for `SequencerInputThread`.
    var inputPollDescriptors: [pollfd] { pollDescriptors }

    // MARK: Listing

    /// The port's description, or `nil` when no such port exists.
    public func portInfo(_ address: PortAddress) -> SequencerPortInfo? {
        var info: OpaquePointer?
        guard snd_seq_port_info_malloc(&info) == 0 else { return nil }
        defer { snd_seq_port_info_free(info) }
        guard snd_seq_get_any_port_info(handle, Int32(address.client), Int32(address.port), info) == 0 else {
            return nil
        }
        let clientName = clients().first { $0.id == address.client }?.name ?? ""
        return SequencerPortInfo(info: info!, clientName: clientName, connections: connections(of: address))
    }

    /// Every client the sequencer has, in client-number order (what `aconnect -l` lists).
    public func clients() -> [SequencerClientInfo] {
        var info: OpaquePointer?
        guard snd_seq_client_info_malloc(&info) == 0 else { return [] }
        defer { snd_seq_client_info_free(info) }
        snd_seq_client_info_set_client(info, -1)
        var found: [SequencerClientInfo] = []
        while snd_seq_query_next_client(handle, info) >= 0 {
            found.append(SequencerClientInfo(info: info!))
        }
        return found
    }

    /// Every port of every client, in address order, with its connections (what `aconnect -l` and
    /// `aplaymidi -l` list).
    public func ports() -> [SequencerPortInfo] {
        var info: OpaquePointer?
        guard snd_seq_port_info_malloc(&info) == 0 else { return [] }
        defer { snd_seq_port_info_free(info) }
        var found: [SequencerPortInfo] = []
        for client in clients() {
            snd_seq_port_info_set_client(info, Int32(client.id))
            snd_seq_port_info_set_port(info, -1)
            while snd_seq_query_next_port(handle, info) >= 0 {
                let address = PortAddress(client: client.id, port: UInt8(truncatingIfNeeded: snd_seq_port_info_get_port(info)))
                found.append(SequencerPortInfo(info: info!, clientName: client.name,
                                               connections: connections(of: address)))
            }
        }
        return found
    }

    /// The ports `address` sends to and the ports it receives from.
    private func connections(of address: PortAddress) -> (to: [PortAddress], from: [PortAddress]) {
        (subscriptions(of: address, type: SND_SEQ_QUERY_SUBS_READ),
         subscriptions(of: address, type: SND_SEQ_QUERY_SUBS_WRITE))
    }

    private func subscriptions(of address: PortAddress, type: snd_seq_query_subs_type_t) -> [PortAddress] {
        var query: OpaquePointer?
        guard snd_seq_query_subscribe_malloc(&query) == 0 else { return [] }
        defer { snd_seq_query_subscribe_free(query) }
        var root = snd_seq_addr_t(client: address.client, port: address.port)
        snd_seq_query_subscribe_set_root(query, &root)
        snd_seq_query_subscribe_set_type(query, type)
        snd_seq_query_subscribe_set_index(query, 0)
        var found: [PortAddress] = []
        while snd_seq_query_port_subscribers(handle, query) >= 0 {
            let other = snd_seq_query_subscribe_get_addr(query)!.pointee
            found.append(PortAddress(client: other.client, port: other.port))
            snd_seq_query_subscribe_set_index(query, snd_seq_query_subscribe_get_index(query) + 1)
        }
        return found
    }
}

/// Where a sent event goes: to every port subscribed to (connected from) the sending port, or to one port.
public enum SequencerDestination: Hashable, Sendable {
    case subscribers
    case port(PortAddress)
}

/// When a scheduled event is delivered, on its queue's clock: in ticks (at the queue's tempo and
/// resolution) or in nanoseconds since the queue started.
public enum EventTime: Hashable, Sendable {
    case tick(UInt32)
    case realTime(nanoseconds: UInt64)
}
