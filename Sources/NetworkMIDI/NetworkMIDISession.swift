import SeqplaySupport
import Foundation
import MIDICore

/// A network MIDI session: an RTP-MIDI (RFC 6295) endpoint that speaks Apple's session protocol, so
/// macOS/iOS (MIDINetworkSession), rtpMIDI on Windows, rtpmidid and other seqplay processes can
/// exchange MIDI with it.
///
/// A session listens on a control port N and a data port N+1 (`Configuration.listenAddress`,
/// default 127.0.0.1:5004). Peers may invite it (subject to `Configuration.policy`) and it may
/// invite peers (`connect(to:)`).
///
/// - Sending: the session is a `MIDIReceiver`; `receive(_:)` sends a message to every connected
///   peer at once, `send(_:at:)` sends messages stamped with a (possibly future) time. Every packet
///   carries a recovery journal (chapters P, C, W, N, T) trimmed by the peers' receiver feedback.
/// - Receiving: messages from every peer go to the receiver given at creation, at their RTP time
///   mapped to the local clock plus `Configuration.playoutLatency`, from the session's playout thread
///   (or at once from its network thread when the latency is 0). Lost packets are repaired from the
///   next packet's journal; a peer that leaves or stops answering clock sync has its notes released.
/// - Lifetime: call `stop()` when done; it ends the session with every peer and its threads. Do not
///   call `stop()` from the receiver or from `onPeerEvent` (they run on the threads it waits for).
/// - Threads: one network thread receives and runs timers; `receive(_:)`/`send(_:at:)` encode and
///   `sendto` on the caller's thread under a short lock (call them from a sequencing thread, not from
///   an audio render callback).
// Why unchecked: the session's state is touched only under `lock` (see "Guarded by `lock`"); the sockets are thread-safe.
public final class NetworkMIDISession: MIDIReceiver, @unchecked Sendable {
    /// Everything that shapes a session; the defaults follow Apple's driver.
    public struct Configuration: Sendable {
        /// The name shown to peers.
        public var name = "seqplay"
        /// Control port address; the data port is the next port. Port 0 picks free ports.
        public var listenAddress = NetworkMIDIAddress(host: "127.0.0.1", port: 5004)!
        /// Who may invite this session.
        public var policy = NetworkMIDIConnectionPolicy.default
        /// Added to each received event's time (seconds): absorbs network jitter. 0 delivers at once.
        public var playoutLatency = 0.005
        /// Invitations beyond this many peers are refused with NO (a flood of invitations cannot
        /// grow the session without bound).
        public var maximumPeers = 32
        /// Invitations are resent this often, this many times, before giving up.
        public var invitationInterval = 1.0
        public var invitationAttempts = 12
        /// As initiator: the first `initialClockSyncCount` exchanges this far apart, then every
        /// `clockSyncInterval` seconds.
        public var initialClockSyncCount = 6
        public var initialClockSyncInterval = 1.5
        public var clockSyncInterval = 10.0
        /// A connected peer from which no clock sync arrives for this long is dropped.
        public var peerTimeout = 30.0
        /// Receiver feedback (RS) is sent at most this often, when new packets arrived.
        public var receiverFeedbackInterval = 0.1
        /// While a peer has not confirmed our latest packet, an empty packet carrying the journal is
        /// sent after this many seconds without data, so a loss at the end of a burst gets repaired.
        public var journalRefreshInterval = 0.1
        /// SCHED_FIFO priority for the network and playout threads where the system permits it
        /// (root, or an rtprio limit); 0 keeps normal scheduling.
        public var realTimePriority: Int32 = 40
        /// Longest SysEx message accepted from a peer; longer ones are dropped.
        public var maximumSysExLength = 1 << 20
        /// SysEx data bytes per packet when sending long messages (16...3000).
        public var sysExSegmentLength = 1000
        /// The recovery journal is kept below this size (bytes) by moving the checkpoint forward.
        public var journalByteBudget = 1400
        /// Called when a peer connects or leaves: on the network thread, or on the thread calling
        /// `disconnect(from:)`/`stop()`; never with the session lock held.
        public var onPeerEvent: (@Sendable (NetworkMIDIPeerEvent) -> Void)?
        /// Test hook for packet loss: called with each outgoing RTP sequence number; return false to
        /// drop that data packet instead of sending it.
        public var outgoingDataPacketFilter: (@Sendable (UInt16) -> Bool)?

        public init() {}
    }

    /// Counters for monitoring and tests.
    public struct Statistics: Equatable, Sendable {
        public var dataPacketsSent = 0
        /// Data packets deliberately not sent by `outgoingDataPacketFilter`.
        public var dataPacketsFiltered = 0
        public var dataPacketsReceived = 0
        /// Packets rejected: malformed, from unknown senders, or not fitting the session state.
        public var packetsDropped = 0
        /// The reason for the last rejected packet.
        public var lastDropReason: String?
        /// Packets missing from peers' sequence numbers, and repairs made from journals for them.
        public var packetsLost = 0
        public var journalRepairMessages = 0
        /// Invitations answered with NO because of the connection policy or the peer limit.
        public var invitationsRefused = 0
        /// Messages stamped further ahead than `NetworkMIDISession.maximumScheduleAhead`, played at
        /// that limit instead (a peer cannot fill the playout buffer with events for next week).
        public var messagesTooFarAhead = 0
    }

    /// How far past now a received message may be scheduled: 10 seconds.
    public static let maximumScheduleAhead: UInt64 = 10_000_000_000

    public let configuration: Configuration
    /// The control port actually bound (useful with port 0); the data port is the next one.
    public let controlAddress: NetworkMIDIAddress
    public let ssrc = UInt32.random(in: 1...UInt32.max)

    let controlSocket: UDPSocket
    let dataSocket: UDPSocket
    /// Guards the session's state; broadcast after each datagram handled (`waitForConnectedPeers`).
    let lock = NSCondition()
    let playout: PlayoutScheduler?
    let receiver: (any MIDIReceiver)?
    let clockBase = UInt64(UInt32.random(in: 0...UInt32.max))
    let latencyNanoseconds: UInt64
    /// `Configuration.sysExSegmentLength`, kept where a packet's command list can hold it.
    let segmentLength: Int

    // Guarded by `lock`.
    var connections: [PeerConnection] = []
    var journal = JournalSender()
    var sentPacketIndex: UInt64 = 0
    var lastDataPacketSentAt: UInt64 = 0
    /// The last packet that carried MIDI state (not just a journal refresh).
    var lastMIDIPacketIndex: UInt64 = 0
    var journalRefreshesSinceMIDI = 0
    let sequenceBase = UInt16.random(in: 0...UInt16.max)
    var stats = Statistics()
    /// The network thread; `connect(to:)` and `send(_:at:)` read its running flag under `lock`, so a
    /// peer added or a packet sent while the session stops comes before `stop()`'s final `finish`.
    let networkThread = ServiceThread()

    /// Opens the session's two ports and starts its network thread.
    /// - Parameter receiver: where MIDI from peers goes (`nil`: a send-only session).
    public init(configuration: Configuration = Configuration(), deliveringTo receiver: (any MIDIReceiver)?) throws(NetworkMIDIError) {
        self.configuration = configuration
        self.receiver = receiver
        latencyNanoseconds = UInt64(max(0, configuration.playoutLatency) * 1e9)
        segmentLength = min(max(configuration.sysExSegmentLength, 16), 3_000)
        (controlSocket, dataSocket) = try Self.bindPortPair(configuration.listenAddress)
        controlAddress = controlSocket.localAddress
        playout = receiver != nil && latencyNanoseconds > 0
            ? PlayoutScheduler(receiver: receiver!, realTimePriority: configuration.realTimePriority) : nil
        networkThread.start(name: "NetworkMIDI \(controlAddress)", qualityOfService: .userInteractive) { self.runNetworkThread() }
    }

    /// Binds control port N and data port N+1; with port 0, tries free port pairs.
    private static func bindPortPair(_ address: NetworkMIDIAddress) throws(NetworkMIDIError) -> (UDPSocket, UDPSocket) {
        guard address.port == 0 else {
            let control = try UDPSocket(bindingTo: address)
            return (control, try UDPSocket(bindingTo: address.withPort(address.port &+ 1)))
        }
        var lastError = NetworkMIDIError.socket("bind \(address)", errno: 0)
        for _ in 0..<32 {
            do {
                let control = try UDPSocket(bindingTo: address)
                return (control, try UDPSocket(bindingTo: address.withPort(control.localAddress.port &+ 1)))
            } catch { lastError = error }
        }
        throw lastError
    }

    // MARK: Public API

    /// Invites the session listening at `address` (its control port). Progress is reported through
    /// `Configuration.onPeerEvent` and `peers`; `waitForConnectedPeers` waits for it.
    public func connect(to address: NetworkMIDIAddress) {
        lock.lock()
        defer { lock.unlock() }
        guard networkThread.isRunning else { return }
        let now = MonotonicClock.now()
        let peer = PeerConnection(controlAddress: address, token: UInt32.random(in: 1...UInt32.max), isInitiator: true,
                                  state: .inviting, now: now, sentPacketIndex: sentPacketIndex,
                                  sysExLimit: configuration.maximumSysExLength)
        connections.append(peer)
        sendInvitation(to: peer, now: now)
    }

    /// Ends the session with every peer at `address` (control port) with BY and releases their notes.
    public func disconnect(from address: NetworkMIDIAddress) {
        finish { $0.controlAddress == address }
    }

    /// Sends BY to every peer, releases their notes and closes the session. The network thread ends
    /// first, so the releases are the last deliveries and come from the calling thread (or the
    /// playout thread) alone.
    public func stop() {
        networkThread.stop()
        finish { _ in true }
        playout?.stop()
    }

    /// The peers known now (connected and still inviting).
    public var peers: [NetworkMIDIPeer] {
        lock.withLock { connections.map(\.snapshot) }
    }

    public var statistics: Statistics {
        lock.withLock { stats }
    }

    /// The MIDI state (notes, controllers, programs…) this session has sent, as its journal sees it.
    package var sentState: MIDIChannelStates {
        lock.withLock { journal.state }
    }

    /// The local clock in RTP ticks (100 µs) at monotonic time `nanoseconds`, as stamped on packets.
    public func ticks(atMonotonicNanoseconds nanoseconds: UInt64) -> UInt64 {
        nanoseconds / NetworkClock.nanosecondsPerTick &+ clockBase
    }

    /// Waits until at least `count` peers are connected (and, if `clockSyncExchanges` > 0, have
    /// completed that many clock-sync exchanges). Returns false on timeout.
    public func waitForConnectedPeers(_ count: Int = 1, clockSyncExchanges: Int = 0, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            let ready = connections.lazy.map(\.snapshot).filter { $0.state == .connected && $0.clockSyncExchanges >= clockSyncExchanges }
            if ready.count >= count { return true }
            // Woken by the network thread after each datagram it handled (a peer's invitation, a clock sync).
            guard lock.wait(until: deadline) else { return false }
        }
    }

    /// Sends `message` to every connected peer now (the `MIDIReceiver` conformance).
    public func receive(_ message: MIDIMessage) {
        send([message])
    }

    /// Sends `messages` to every connected peer in as few packets as they fit, stamped with
    /// monotonic time `time` (nanoseconds, default now; a future time makes receivers play them then).
    /// SysEx longer than `Configuration.sysExSegmentLength` is split across packets.
    public func send(_ messages: [MIDIMessage], at time: UInt64? = nil) {
        let timestamp = UInt32(truncatingIfNeeded: ticks(atMonotonicNanoseconds: time ?? MonotonicClock.now()))
        lock.lock()
        defer { lock.unlock() }
        guard networkThread.isRunning else { return }
        var pending: [MIDIMessage] = []
        var pendingBytes = 0
        for message in messages {
            if case .systemExclusive(let bytes) = message, bytes.count > segmentLength {
                sendPacket(pending, timestamp: timestamp)
                pending = []; pendingBytes = 0
                sendSegmented(bytes, timestamp: timestamp)
                continue
            }
            let size = message.bytes.count + 1
            if pendingBytes + size > segmentLength + 200 {
                sendPacket(pending, timestamp: timestamp)
                pending = []; pendingBytes = 0
            }
            pending.append(message)
            pendingBytes += size
        }
        sendPacket(pending, timestamp: timestamp)
    }
}
