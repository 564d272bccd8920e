import SeqplaySupport
import MIDICore

/// Messages and peer events gathered under the lock, handed out after it is released (so a
/// receiver may call back into the session).
struct SessionOutbox {
    /// A nil message: the peer left (for receivers that release its notes themselves).
    var deliveries: [(message: MIDIMessage?, time: UInt64, peerSSRC: UInt32)] = []
    var events: [NetworkMIDIPeerEvent] = []
}

/// The network thread: receiving datagrams, the session protocol state machine, and timers.
extension NetworkMIDISession {
    func runNetworkThread() {
        RealtimeScheduling.raiseCurrentThread(toPriority: configuration.realTimePriority)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while networkThread.isRunning {
            let readable = waitForReadable([controlSocket, dataSocket], timeoutMilliseconds: 10)
            for (socket, isDataPort) in [(controlSocket, false), (dataSocket, true)] where readable[isDataPort ? 1 : 0] {
                while let (count, source) = socket.receive(into: &buffer) {
                    handleDatagram(buffer[0..<count], from: source, onDataPort: isDataPort)
                }
            }
            var outbox = SessionOutbox()
            lock.lock()
            runTimers(now: MonotonicClock.now(), &outbox)
            lock.unlock()
            hand(outbox)
        }
    }

    func handleDatagram(_ datagram: ArraySlice<UInt8>, from source: NetworkMIDIAddress, onDataPort: Bool) {
        var outbox = SessionOutbox()
        lock.lock()
        let now = MonotonicClock.now()
        do throws(NetworkMIDIPacketError) {
            if SessionPacket.isSessionPacket(datagram) {
                try handle(try SessionPacket(decoding: datagram), from: source, onDataPort: onDataPort, now: now, &outbox)
            } else if onDataPort {
                try handle(try RTPMIDIPacket(decoding: datagram), from: source, now: now, &outbox)
            } else {
                throw .unexpected("datagram without the session signature on the control port")
            }
        } catch {
            countDropped("\(source): \(error)")
        }
        lock.broadcast()
        lock.unlock()
        hand(outbox)
    }

    func countDropped(_ reason: String) {
        stats.packetsDropped += 1
        stats.lastDropReason = reason
    }

    /// Delivers gathered messages (to the playout buffer, or at once) and reports peer events.
    func hand(_ outbox: SessionOutbox) {
        for (message, time, ssrc) in outbox.deliveries {
            if let playout {
                playout.schedule(message, at: time, fromPeer: ssrc)
            } else {
                receiver?.deliver(message, scheduledAt: time, fromPeer: ssrc)
            }
        }
        if let onPeerEvent = configuration.onPeerEvent {
            for event in outbox.events { onPeerEvent(event) }
        }
    }

    // MARK: Session protocol

    private func handle(_ packet: SessionPacket, from source: NetworkMIDIAddress, onDataPort: Bool, now: UInt64,
                        _ outbox: inout SessionOutbox) throws(NetworkMIDIPacketError) {
        switch packet {
        case .invitation(let invitation):
            handleInvitation(invitation, from: source, onDataPort: onDataPort, now: now, &outbox)
        case .accepted(let answer):
            guard let peer = connections.first(where: {
                $0.isInitiator && $0.state == .inviting && $0.token == answer.initiatorToken
                    && $0.controlAddress.host == source.host && $0.invitingDataPort == onDataPort
            }) else { throw .unexpected("OK that answers no invitation of ours") }
            peer.ssrc = answer.ssrc
            peer.name = answer.name ?? ""
            peer.invitationAttempts = 0
            if onDataPort {
                peer.dataAddress = source
                connected(peer, now: now, &outbox)
                sendClockSyncRequest(to: peer, now: now)
            } else {
                peer.invitingDataPort = true
                sendInvitation(to: peer, now: now)
            }
        case .refused(let answer):
            guard let peer = connections.first(where: {
                $0.isInitiator && $0.state == .inviting && $0.token == answer.initiatorToken
            }) else { throw .unexpected("NO that answers no invitation of ours") }
            remove(peer, reason: .refused, sendingBye: false, now: now, &outbox)
        case .end(let bye):
            guard let peer = connections.first(where: { $0.controlAddress.host == source.host && $0.ssrc == bye.ssrc }) else {
                throw .unexpected("BY from \(source), not a peer")
            }
            remove(peer, reason: .endedByPeer, sendingBye: false, now: now, &outbox)
        case .clockSync(let ck):
            try handleClockSync(ck, from: source, onDataPort: onDataPort, now: now)
        case .receiverFeedback(let peerSSRC, let sequence):
            guard let peer = connections.first(where: { $0.state == .connected && $0.ssrc == peerSSRC }) else {
                throw .unexpected("RS from \(source), not a connected peer")
            }
            peer.confirmedPacketIndex = max(peer.confirmedPacketIndex, packetIndex(ofSequenceNumber: sequence))
        }
    }

    private func handleInvitation(_ invitation: SessionPacket.Exchange, from source: NetworkMIDIAddress,
                                  onDataPort: Bool, now: UInt64, _ outbox: inout SessionOutbox) {
        let socket = onDataPort ? dataSocket : controlSocket
        let answer = exchange(token: invitation.initiatorToken)
        guard !onDataPort else {
            guard let peer = connections.first(where: {
                !$0.isInitiator && $0.token == invitation.initiatorToken && $0.controlAddress.host == source.host
            }) else {
                socket.send(SessionPacket.refused(answer).encoded, to: source)
                countDropped("\(source): data-port invitation without a control-port invitation")
                return
            }
            peer.dataAddress = source
            if peer.state != .connected { connected(peer, now: now, &outbox) }
            socket.send(SessionPacket.accepted(answer).encoded, to: source)
            return
        }
        let isKnown = connections.contains { $0.controlAddress == source }
        guard configuration.policy.allows(source), isKnown || connections.count < configuration.maximumPeers else {
            socket.send(SessionPacket.refused(answer).encoded, to: source)
            stats.invitationsRefused += 1
            return
        }
        if let existing = connections.first(where: { !$0.isInitiator && $0.controlAddress == source }) {
            if existing.token == invitation.initiatorToken {
                socket.send(SessionPacket.accepted(answer).encoded, to: source)
                return
            }
            remove(existing, reason: .replaced, sendingBye: false, now: now, &outbox)
        }
        let peer = PeerConnection(controlAddress: source, token: invitation.initiatorToken, isInitiator: false,
                                  state: .awaitingDataInvitation, now: now, sentPacketIndex: sentPacketIndex,
                                  sysExLimit: configuration.maximumSysExLength)
        peer.ssrc = invitation.ssrc
        peer.name = invitation.name ?? ""
        connections.append(peer)
        socket.send(SessionPacket.accepted(answer).encoded, to: source)
    }

    private func connected(_ peer: PeerConnection, now: UInt64, _ outbox: inout SessionOutbox) {
        peer.state = .connected
        peer.confirmedPacketIndex = sentPacketIndex
        peer.lastHeardClockSyncAt = now
        outbox.events.append(.connected(peer.snapshot))
    }

    /// Clock sync: count 0 asks us for our time, count 1 answers our request (we compute the offset
    /// and confirm with count 2), count 2 lets the responder compute the offset too. Offsets are
    /// peer clock minus local clock; latency is half the round trip.
    private func handleClockSync(_ ck: SessionPacket.ClockSync, from source: NetworkMIDIAddress, onDataPort: Bool,
                                 now: UInt64) throws(NetworkMIDIPacketError) {
        guard let peer = connections.first(where: {
            $0.state == .connected && $0.ssrc == ck.ssrc && $0.controlAddress.host == source.host
        }) else { throw .unexpected("CK from \(source), not a connected peer") }
        let nowTicks = ticks(atMonotonicNanoseconds: now)
        let maximumRoundTrip: UInt64 = 100_000  // 10 s
        let (t1, t2, t3) = ck.timestamps
        switch ck.count {
        case 0:
            let reply = SessionPacket.ClockSync(ssrc: ssrc, count: 1, timestamps: (t1, nowTicks, 0))
            (onDataPort ? dataSocket : controlSocket).send(SessionPacket.clockSync(reply).encoded, to: source)
            peer.lastHeardClockSyncAt = now
        case 1:
            guard peer.isInitiator, t1 <= nowTicks, nowTicks - t1 < maximumRoundTrip else {
                throw .unexpected("CK reply to a request we did not send")
            }
            let midpoint = t1 + (nowTicks - t1) / 2
            peer.recordClockSync(offsetTicks: Int64(bitPattern: t2 &- midpoint), latencyTicks: Int64((nowTicks - t1) / 2), now: now)
            let confirm = SessionPacket.ClockSync(ssrc: ssrc, count: 2, timestamps: (t1, t2, nowTicks))
            (onDataPort ? dataSocket : controlSocket).send(SessionPacket.clockSync(confirm).encoded, to: source)
        default:
            guard t3 >= t1, t3 - t1 < maximumRoundTrip, t2 <= nowTicks, nowTicks - t2 < maximumRoundTrip else {
                throw .unexpected("CK confirmation with impossible timestamps")
            }
            let midpoint = t1 + (t3 - t1) / 2
            peer.recordClockSync(offsetTicks: Int64(bitPattern: midpoint &- t2), latencyTicks: Int64((t3 - t1) / 2), now: now)
        }
    }

    // MARK: RTP-MIDI data

    private func handle(_ packet: RTPMIDIPacket, from source: NetworkMIDIAddress, now: UInt64,
                        _ outbox: inout SessionOutbox) throws(NetworkMIDIPacketError) {
        guard let peer = connections.first(where: { $0.state == .connected && $0.dataAddress == source }) else {
            throw .unexpected("RTP-MIDI packet from \(source), not a connected peer")
        }
        guard peer.ssrc == 0 || packet.ssrc == peer.ssrc else { throw .unexpected("RTP SSRC does not match the peer's") }
        var repairs: [MIDIMessage] = []
        if let last = peer.lastSequenceNumber {
            let step = Int16(bitPattern: packet.sequenceNumber &- last)
            guard step > 0 else { throw .unexpected("late or repeated RTP packet \(packet.sequenceNumber)") }
            if step > 1 {
                peer.packetsLost += Int(step) - 1
                stats.packetsLost += Int(step) - 1
                peer.sysEx.cancel()
                if let journal = packet.journal {
                    repairs = peer.receivedState.repair(from: journal)
                    stats.journalRepairMessages += repairs.count
                }
            }
        }
        peer.lastSequenceNumber = packet.sequenceNumber
        peer.packetsReceived += 1
        peer.feedbackPending = true
        stats.dataPacketsReceived += 1
        let packetTime = localTime(ofPeerTimestamp: packet.timestamp, peer: peer, now: now)
        for repair in repairs { deliver(repair, at: packetTime, peer: peer, &outbox) }
        for timed in packet.commands {
            let time = localTime(ofPeerTimestamp: packet.timestamp &+ timed.offset, peer: peer, now: now)
            switch timed.command {
            case .message(let message):
                peer.receivedState.apply(message)
                deliver(message, at: time, peer: peer, &outbox)
            case .sysExSegment(let data, let isFirst, let isLast):
                do throws(NetworkMIDIPacketError) {
                    if let complete = try peer.sysEx.add(data, isFirst: isFirst, isLast: isLast) {
                        deliver(.systemExclusive(complete), at: time, peer: peer, &outbox)
                    }
                } catch {
                    countDropped("\(source): \(error)")
                }
            case .sysExCancel:
                peer.sysEx.cancel()
            }
        }
    }

    private func deliver(_ message: MIDIMessage, at stampedTime: UInt64, peer: PeerConnection, _ outbox: inout SessionOutbox) {
        var time = stampedTime
        let latest = MonotonicClock.now() &+ Self.maximumScheduleAhead
        if time > latest {
            time = latest
            stats.messagesTooFarAhead += 1
        }
        peer.latestScheduledTime = max(peer.latestScheduledTime, time)
        outbox.deliveries.append((message, time, peer.ssrc))
    }

    /// The local monotonic time (ns) at which to play an event the peer stamped `timestamp`: its
    /// time on the peer's clock, mapped through the clock offset, plus the playout latency. Before
    /// the first clock sync, the first packet is assumed to have been sent when it arrived.
    func localTime(ofPeerTimestamp timestamp: UInt32, peer: PeerConnection, now: UInt64) -> UInt64 {
        let localNow = Int64(bitPattern: ticks(atMonotonicNanoseconds: now))
        if peer.clockOffsetTicks == nil && peer.provisionalOffsetTicks == nil {
            peer.provisionalOffsetTicks = Int64(timestamp) &- localNow
        }
        let offset = peer.clockOffsetTicks ?? peer.provisionalOffsetTicks ?? 0
        let expected = localNow &+ offset
        let peerTicks = expected &+ Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: expected)))
        let localTicks = peerTicks &- offset &- Int64(bitPattern: clockBase)
        guard localTicks > 0 else { return now }
        let halfTick = NetworkClock.nanosecondsPerTick / 2
        return UInt64(localTicks) * NetworkClock.nanosecondsPerTick + halfTick + latencyNanoseconds
    }

    // MARK: Timers and leaving

    private func runTimers(now: UInt64, _ outbox: inout SessionOutbox) {
        for peer in connections {
            switch peer.state {
            case .inviting where now >= peer.nextInvitationAt:
                if peer.invitationAttempts >= configuration.invitationAttempts {
                    remove(peer, reason: .invitationTimedOut, sendingBye: false, now: now, &outbox)
                } else {
                    sendInvitation(to: peer, now: now)
                }
            case .awaitingDataInvitation
                where now - peer.joinedAt > UInt64(configuration.invitationInterval * Double(configuration.invitationAttempts) * 1e9):
                remove(peer, reason: .invitationTimedOut, sendingBye: false, now: now, &outbox)
            case .connected:
                if now - peer.lastHeardClockSyncAt > UInt64(nanoseconds: configuration.peerTimeout) {
                    remove(peer, reason: .clockSyncTimedOut, sendingBye: true, now: now, &outbox)
                    continue
                }
                if peer.isInitiator && now >= peer.nextClockSyncAt { sendClockSyncRequest(to: peer, now: now) }
                if peer.feedbackPending && now >= peer.nextFeedbackAt { sendReceiverFeedback(to: peer, now: now) }
            default:
                break
            }
        }
        refreshJournalIfUnconfirmed(now: now)
    }

    /// Forgets `peer`, releasing its sounding notes after anything already scheduled from it (or
    /// telling a receiver that releases them itself that it left).
    func remove(_ peer: PeerConnection, reason: NetworkMIDIPeerEvent.EndReason, sendingBye: Bool, now: UInt64,
                _ outbox: inout SessionOutbox) {
        connections.removeAll { $0 === peer }
        if sendingBye {
            controlSocket.send(SessionPacket.end(exchange(token: peer.token)).encoded, to: peer.controlAddress)
        }
        let releaseTime = max(peer.latestScheduledTime, now)
        if receiver?.releasesNotesOfLeavingPeers == true {
            outbox.deliveries.append((nil, releaseTime, peer.ssrc))
        } else {
            for release in peer.receivedState.releaseAllNotes() { outbox.deliveries.append((release, releaseTime, peer.ssrc)) }
        }
        outbox.events.append(.ended(peer.snapshot, reason: reason))
    }

    /// Ends the session with the peers matching `predicate` (BY, note release, event).
    func finish(where predicate: (PeerConnection) -> Bool) {
        var outbox = SessionOutbox()
        lock.lock()
        let now = MonotonicClock.now()
        for peer in connections where predicate(peer) {
            remove(peer, reason: .disconnected, sendingBye: true, now: now, &outbox)
        }
        lock.unlock()
        hand(outbox)
    }
}
