import MIDICore

/// The sending side of the recovery journal: remembers the sender's MIDI state and which packet last
/// changed each part of it, and builds the journal of everything changed since the checkpoint.
///
/// Packets are counted by a 64-bit index (the RTP sequence number is its low 16 bits). The checkpoint
/// moves forward when every peer has confirmed receipt (RS) and when the journal would outgrow its
/// byte budget, so it stays small however long the session runs.
struct JournalSender {
    private(set) var state = MIDIChannelStates()
    /// Index of the first packet the journal covers.
    private(set) var checkpoint: UInt64 = 1
    private var noteChangedAt = [UInt64](repeating: 0, count: 16 * 128)
    private var controllerChangedAt = [UInt64](repeating: 0, count: 16 * 128)
    private var programChangedAt = [UInt64](repeating: 0, count: 16)
    private var pitchWheelChangedAt = [UInt64](repeating: 0, count: 16)
    private var pressureChangedAt = [UInt64](repeating: 0, count: 16)
    /// The latest change of anything on each channel, so untouched channels are skipped quickly.
    private var channelChangedAt = [UInt64](repeating: 0, count: 16)

    /// Notes `message`, sent in packet `packetIndex`, in the state.
    mutating func record(_ message: MIDIMessage, inPacket packetIndex: UInt64) {
        if case .controlChange(let c, let controller, _) = message, controller == 120 || controller == 123 {
            for (channel, note) in state.soundingNotes where channel == c & 0x0F {
                noteChangedAt[MIDIChannelStates.index(channel, note)] = packetIndex
            }
        }
        let change = state.apply(message)
        if change != nil, let channel = message.channel { channelChangedAt[Int(channel & 0x0F)] = packetIndex }
        switch change {
        case .note(let c, let n): noteChangedAt[MIDIChannelStates.index(c, n)] = packetIndex
        case .controller(let c, let n): controllerChangedAt[MIDIChannelStates.index(c, n)] = packetIndex
        case .program(let c): programChangedAt[Int(c)] = packetIndex
        case .pitchWheel(let c): pitchWheelChangedAt[Int(c)] = packetIndex
        case .channelPressure(let c): pressureChangedAt[Int(c)] = packetIndex
        case .allNotes, nil: break
        }
    }

    /// Moves the checkpoint forward to `packetIndex` (never back).
    mutating func advanceCheckpoint(to packetIndex: UInt64) {
        checkpoint = max(checkpoint, packetIndex)
    }

    /// The journal for a packet: everything changed since the checkpoint, at most `byteBudget`
    /// bytes. If the full history is too large, the checkpoint is moved forward until it fits.
    mutating func journal(sequenceNumberOf: (UInt64) -> UInt16, byteBudget: Int) -> RecoveryJournal {
        while true {
            let journal = RecoveryJournal(checkpointSequenceNumber: sequenceNumberOf(checkpoint),
                                          channels: channelJournals(since: checkpoint))
            guard journal.encodedLength > byteBudget else { return journal }
            // Keep roughly the newest changes that fit (a log takes about 2 bytes), oldest dropped first.
            let stamps = (noteChangedAt + controllerChangedAt + programChangedAt + pitchWheelChangedAt
                          + pressureChangedAt).filter { $0 >= checkpoint }.sorted(by: >)
            let keep = min(max(byteBudget / 3 - 16, 1), stamps.count - 1)
            checkpoint = max(checkpoint + 1, stamps[keep] + 1)
        }
    }

    private func channelJournals(since first: UInt64) -> [RecoveryJournal.ChannelJournal] {
        (0..<UInt8(16)).compactMap { c in
            let ci = Int(c)
            guard channelChangedAt[ci] >= first else { return nil }
            var entry = RecoveryJournal.ChannelJournal(channel: c)
            if programChangedAt[ci] >= first { entry.program = state.programs[ci] }
            if pitchWheelChangedAt[ci] >= first { entry.pitchWheel = state.pitchWheels[ci] }
            if pressureChangedAt[ci] >= first { entry.channelPressure = state.channelPressures[ci] }
            for number in 0..<UInt8(120) {
                let i = MIDIChannelStates.index(c, number)
                if controllerChangedAt[i] >= first, let value = state.controllerValues[i] {
                    entry.controllers.append(.init(controller: number, value: value))
                }
            }
            for note in 0..<UInt8(128) {
                let i = MIDIChannelStates.index(c, note)
                guard noteChangedAt[i] >= first else { continue }
                let velocity = state.noteVelocities[i]
                if velocity > 0 { entry.notesOn.append(.init(note: note, velocity: velocity)) }
                else { entry.notesOff.append(note) }
            }
            return entry.isEmpty ? nil : entry
        }
    }
}
