/// What a session knows about one remote participant, as reported by `NetworkMIDISession.peers`.
public struct NetworkMIDIPeer: Equatable, Sendable {
    /// Where the peer is in the session protocol.
    public enum State: Equatable, Sendable {
        /// We invited it and wait for its OK on the control port, then on the data port.
        case inviting
        /// It invited us on the control port; we wait for its invitation on the data port.
        case awaitingDataInvitation
        /// Both ports are set up: MIDI flows both ways.
        case connected
    }

    /// The name the peer gave in its invitation or acceptance ("" if it gave none).
    public var name: String
    /// The peer's control port; its data port is the next one.
    public var controlAddress: NetworkMIDIAddress
    /// The peer's RTP synchronization source identifier (0 until known).
    public var ssrc: UInt32
    /// True when this session sent the invitation (and so drives clock synchronization).
    public var isInitiator: Bool
    public var state: State
    /// Peer clock minus local clock, in seconds (`nil` before a clock-sync exchange): from the exchange with the
    /// shortest round trip of the last 30 s (at most 8), whose error (at most half its round trip) is smallest.
    public var clockOffset: Double?
    /// One-way network latency estimated from the latest clock-sync exchange (half the round trip), in seconds.
    public var latency: Double?
    /// Clock-sync exchanges completed with this peer.
    public var clockSyncExchanges: Int
    /// RTP-MIDI packets received from the peer, and packets found missing in its sequence numbers.
    public var packetsReceived: Int
    public var packetsLost: Int
}

/// Something that happened to a peer, reported to `NetworkMIDISession.Configuration.onPeerEvent`.
public enum NetworkMIDIPeerEvent: Equatable, Sendable {
    case connected(NetworkMIDIPeer)
    /// The peer left the session; its sounding notes have been released.
    case ended(NetworkMIDIPeer, reason: EndReason)

    /// Why a session with a peer ended.
    public enum EndReason: Equatable, Sendable {
        /// It sent BY.
        case endedByPeer
        /// It answered our invitation with NO.
        case refused
        /// It never answered our invitation.
        case invitationTimedOut
        /// No clock synchronization for longer than the peer timeout.
        case clockSyncTimedOut
        /// It invited us again with a new token (it restarted); the new connection replaces this one.
        case replaced
        /// We disconnected it (or stopped the session).
        case disconnected
    }
}

/// The session's bookkeeping for one peer (guarded by the session's lock).
final class PeerConnection {
    var name = ""
    let controlAddress: NetworkMIDIAddress
    var dataAddress: NetworkMIDIAddress
    var ssrc: UInt32 = 0
    let token: UInt32
    let isInitiator: Bool
    var state: NetworkMIDIPeer.State
    let joinedAt: UInt64

    // Invitation retries (initiator): first on the control port, then on the data port.
    var invitingDataPort = false
    var invitationAttempts = 0
    var nextInvitationAt: UInt64 = 0

    // Clock synchronization.
    /// The offset in use: the one measured with the shortest round trip among `recentClockSyncs`.
    var clockOffsetTicks: Int64?
    /// The last exchanges (offset, half round trip, monotonic ns), at most `clockSyncsKept` of the last
    /// `clockSyncWindow`: a round trip delayed on one leg (a busy host or network) errs by up to half of it,
    /// so the shortest one's offset is the best, while the window follows the clocks' drift.
    private var recentClockSyncs: [(offset: Int64, latency: Int64, at: UInt64)] = []
    static let clockSyncsKept = 8
    static let clockSyncWindow: UInt64 = 30_000_000_000
    /// Offset assumed from the first data packet until a clock sync completes.
    var provisionalOffsetTicks: Int64?
    var latencyTicks: Int64?
    var clockSyncExchanges = 0
    var clockSyncRequestsSent = 0
    var nextClockSyncAt: UInt64 = 0
    var lastHeardClockSyncAt: UInt64

    // Receiving.
    var receivedState = MIDIChannelStates()
    var lastSequenceNumber: UInt16?
    var packetsReceived = 0
    var packetsLost = 0
    var sysEx: SysExReassembler
    var latestScheduledTime: UInt64 = 0
    var feedbackPending = false
    var nextFeedbackAt: UInt64 = 0

    // Sending: the last of our packets the peer confirmed with RS.
    var confirmedPacketIndex: UInt64

    init(controlAddress: NetworkMIDIAddress, token: UInt32, isInitiator: Bool, state: NetworkMIDIPeer.State,
         now: UInt64, sentPacketIndex: UInt64, sysExLimit: Int) {
        self.controlAddress = controlAddress
        self.dataAddress = controlAddress.withPort(controlAddress.port &+ 1)
        self.token = token
        self.isInitiator = isInitiator
        self.state = state
        self.joinedAt = now
        self.lastHeardClockSyncAt = now
        self.confirmedPacketIndex = sentPacketIndex
        self.sysEx = SysExReassembler(limit: sysExLimit)
    }

    var snapshot: NetworkMIDIPeer {
        let seconds = { (ticks: Int64?) in ticks.map { Double($0) * Double(NetworkClock.nanosecondsPerTick) / 1e9 } }
        return NetworkMIDIPeer(name: name, controlAddress: controlAddress, ssrc: ssrc, isInitiator: isInitiator,
                               state: state, clockOffset: seconds(clockOffsetTicks), latency: seconds(latencyTicks),
                               clockSyncExchanges: clockSyncExchanges, packetsReceived: packetsReceived,
                               packetsLost: packetsLost)
    }

    /// Records a finished clock sync exchange at `now`: the peer's clock minus ours, and half the
    /// round trip, both in 100 µs ticks.
    func recordClockSync(offsetTicks: Int64, latencyTicks: Int64, now: UInt64) {
        recentClockSyncs.removeAll { now &- $0.at > Self.clockSyncWindow }
        if recentClockSyncs.count == Self.clockSyncsKept { recentClockSyncs.removeFirst() }
        recentClockSyncs.append((offsetTicks, latencyTicks, now))
        clockOffsetTicks = recentClockSyncs.min { $0.latency < $1.latency }!.offset
        self.latencyTicks = latencyTicks
        clockSyncExchanges += 1
        lastHeardClockSyncAt = now
    }
}
