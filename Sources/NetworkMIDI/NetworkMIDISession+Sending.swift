import SeqplaySupport
import MIDICore

/// Sending RTP-MIDI packets and session packets. Every method here runs with `lock` held.
extension NetworkMIDISession {
    func sequenceNumber(ofPacket index: UInt64) -> UInt16 {
        sequenceBase &+ UInt16(truncatingIfNeeded: index)
    }

    /// Sends one packet with `messages` (if any) and its journal to every connected peer, then
    /// records the messages in the journal (a packet's journal covers the packets before it).
    func sendPacket(_ messages: [MIDIMessage], timestamp: UInt32) {
        guard !messages.isEmpty else { return }
        sendPacket(commands: messages.map { TimedRTPMIDICommand(offset: 0, command: .message($0)) }, timestamp: timestamp)
        lastMIDIPacketIndex = sentPacketIndex
        journalRefreshesSinceMIDI = 0
        for message in messages { journal.record(message, inPacket: sentPacketIndex) }
    }

    /// Sends `sysEx` (F0 … F7) as segments of at most `segmentLength` data bytes, one per packet.
    func sendSegmented(_ sysEx: [UInt8], timestamp: UInt32) {
        let data = sysEx.dropFirst().dropLast()
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + segmentLength, data.endIndex)
            let segment = RTPMIDICommand.sysExSegment(data: Array(data[start..<end]),
                                                      isFirst: start == data.startIndex, isLast: end == data.endIndex)
            sendPacket(commands: [TimedRTPMIDICommand(offset: 0, command: segment)], timestamp: timestamp)
            start = end
        }
    }

    /// Sends a packet with an empty command list and the current journal when a peer has not
    /// confirmed our latest MIDI packet for a while: it lets the peer repair a loss at the end of a
    /// burst (RFC 4696 §4.2). At most `maximumJournalRefreshes` follow each MIDI packet, so peers
    /// that never send RS (some implementations don't) are not flooded.
    func refreshJournalIfUnconfirmed(now: UInt64) {
        let unconfirmed = connections.contains { $0.state == .connected && $0.confirmedPacketIndex < lastMIDIPacketIndex }
        guard unconfirmed, journalRefreshesSinceMIDI < Self.maximumJournalRefreshes,
              now - lastDataPacketSentAt > UInt64(nanoseconds: configuration.journalRefreshInterval) else { return }
        sendPacket(commands: [], timestamp: UInt32(truncatingIfNeeded: ticks(atMonotonicNanoseconds: now)))
        journalRefreshesSinceMIDI += 1
    }

    static let maximumJournalRefreshes = 8

    private func sendPacket(commands: [TimedRTPMIDICommand], timestamp: UInt32) {
        sentPacketIndex += 1
        lastDataPacketSentAt = MonotonicClock.now()
        let connected = connections.filter { $0.state == .connected }
        if let oldestUnconfirmed = connected.map(\.confirmedPacketIndex).min() {
            journal.advanceCheckpoint(to: oldestUnconfirmed + 1)
        } else {
            journal.advanceCheckpoint(to: sentPacketIndex)
        }
        let sequence = sequenceNumber(ofPacket: sentPacketIndex)
        let packetJournal = journal.journal(sequenceNumberOf: sequenceNumber(ofPacket:),
                                            byteBudget: configuration.journalByteBudget)
        let packet = RTPMIDIPacket(sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
                                   commands: commands, journal: packetJournal)
        guard !connected.isEmpty else { return }
        if let filter = configuration.outgoingDataPacketFilter, !filter(sequence) {
            stats.dataPacketsFiltered += 1
            return
        }
        let bytes = packet.encoded
        for peer in connected where dataSocket.send(bytes, to: peer.dataAddress) {
            stats.dataPacketsSent += 1
        }
    }

    /// The packet index (64-bit) of our packet with RTP sequence number `sequence`, the latest one
    /// not after the last packet sent.
    func packetIndex(ofSequenceNumber sequence: UInt16) -> UInt64 {
        let back = UInt64(sequenceNumber(ofPacket: sentPacketIndex) &- sequence)
        return sentPacketIndex >= back ? sentPacketIndex - back : 0
    }

    func exchange(token: UInt32) -> SessionPacket.Exchange {
        SessionPacket.Exchange(initiatorToken: token, ssrc: ssrc, name: configuration.name)
    }

    func sendInvitation(to peer: PeerConnection, now: UInt64) {
        let invitation = SessionPacket.invitation(exchange(token: peer.token)).encoded
        if peer.invitingDataPort {
            dataSocket.send(invitation, to: peer.dataAddress)
        } else {
            controlSocket.send(invitation, to: peer.controlAddress)
        }
        peer.invitationAttempts += 1
        peer.nextInvitationAt = now + UInt64(nanoseconds: configuration.invitationInterval)
    }

    func sendClockSyncRequest(to peer: PeerConnection, now: UInt64) {
        let ck = SessionPacket.ClockSync(ssrc: ssrc, count: 0, timestamps: (ticks(atMonotonicNanoseconds: now), 0, 0))
        dataSocket.send(SessionPacket.clockSync(ck).encoded, to: peer.dataAddress)
        peer.clockSyncRequestsSent += 1
        let interval = peer.clockSyncRequestsSent < configuration.initialClockSyncCount
            ? configuration.initialClockSyncInterval : configuration.clockSyncInterval
        peer.nextClockSyncAt = now + UInt64(nanoseconds: interval)
    }

    func sendReceiverFeedback(to peer: PeerConnection, now: UInt64) {
        guard let sequence = peer.lastSequenceNumber else { return }
        controlSocket.send(SessionPacket.receiverFeedback(ssrc: ssrc, sequenceNumber: sequence).encoded,
                           to: peer.controlAddress)
        peer.feedbackPending = false
        peer.nextFeedbackAt = now + UInt64(nanoseconds: configuration.receiverFeedbackInterval)
    }
}
