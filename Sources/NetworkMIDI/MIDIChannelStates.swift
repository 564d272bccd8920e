import MIDICore

/// The part of the MIDI state of 16 channels that the recovery journal protects: sounding notes,
/// controller values, program, pitch wheel and channel pressure.
///
/// Senders and receivers keep one each; after packet loss and journal repair the two are equal.
/// (Not `Control`'s `ChannelState`: that is one channel's preset and mixer settings as a sound module
/// shows them; this is the wire's state, notes and controllers included, 0-based channels.)
/// Channel mode messages (controllers 120–127) are not stored as values: All Sound Off (120) and
/// All Notes Off (123) release the channel's notes.
package struct MIDIChannelStates: Equatable, Sendable {
    /// Note-on velocity of each sounding note, 0 when the note is off; index `channel * 128 + note`.
    package private(set) var noteVelocities = [UInt8](repeating: 0, count: 16 * 128)
    /// Latest value of each controller 0...119 seen; index `channel * 128 + controller`.
    package private(set) var controllerValues = [UInt8?](repeating: nil, count: 16 * 128)
    package private(set) var programs = [UInt8?](repeating: nil, count: 16)
    package private(set) var pitchWheels = [UInt16?](repeating: nil, count: 16)
    package private(set) var channelPressures = [UInt8?](repeating: nil, count: 16)

    package init() {}

    /// One piece of state a message changed.
    enum Change: Equatable {
        case note(channel: UInt8, note: UInt8)
        case allNotes(channel: UInt8)
        case controller(channel: UInt8, controller: UInt8)
        case program(channel: UInt8)
        case pitchWheel(channel: UInt8)
        case channelPressure(channel: UInt8)
    }

    /// Updates the state for `message` and says what changed (`nil` for messages outside the state).
    @discardableResult
    mutating func apply(_ message: MIDIMessage) -> Change? {
        switch message {
        case .noteOn(let c, let n, let v):
            noteVelocities[Self.index(c, n)] = v & 0x7F
            return .note(channel: c & 0x0F, note: n & 0x7F)
        case .noteOff(let c, let n, _):
            noteVelocities[Self.index(c, n)] = 0
            return .note(channel: c & 0x0F, note: n & 0x7F)
        case .controlChange(let c, let controller, let value):
            if controller == 120 || controller == 123 {
                let base = Int(c & 0x0F) * 128
                for i in base..<base + 128 { noteVelocities[i] = 0 }
                return .allNotes(channel: c & 0x0F)
            }
            guard controller < 120 else { return nil }
            controllerValues[Self.index(c, controller)] = value & 0x7F
            return .controller(channel: c & 0x0F, controller: controller)
        case .programChange(let c, let program):
            programs[Int(c & 0x0F)] = program & 0x7F
            return .program(channel: c & 0x0F)
        case .pitchBend(let c, let value):
            pitchWheels[Int(c & 0x0F)] = value & 0x3FFF
            return .pitchWheel(channel: c & 0x0F)
        case .channelPressure(let c, let pressure):
            channelPressures[Int(c & 0x0F)] = pressure & 0x7F
            return .channelPressure(channel: c & 0x0F)
        default:
            return nil
        }
    }

    /// The sounding notes as (channel, note) pairs, in channel then note order.
    package var soundingNotes: [(channel: UInt8, note: UInt8)] {
        noteVelocities.indices.filter { noteVelocities[$0] > 0 }.map { (UInt8($0 / 128), UInt8($0 % 128)) }
    }

    /// Messages that bring this state in line with what `journal` says the sender's state is:
    /// controllers first (so bank selects precede programs), then program, pitch wheel, pressure,
    /// then note-offs and note-ons. Applies them to `self` as well.
    mutating func repair(from journal: RecoveryJournal) -> [MIDIMessage] {
        var repairs: [MIDIMessage] = []
        func send(_ message: MIDIMessage) { apply(message); repairs.append(message) }
        for entry in journal.channels {
            let c = entry.channel
            for log in entry.controllers where log.controller < 120
                && controllerValues[Self.index(c, log.controller)] != log.value {
                send(.controlChange(channel: c, controller: log.controller, value: log.value))
            }
            if let program = entry.program, programs[Int(c)] != program {
                send(.programChange(channel: c, program: program))
            }
            if let wheel = entry.pitchWheel, pitchWheels[Int(c)] != wheel {
                send(.pitchBend(channel: c, value: wheel))
            }
            if let pressure = entry.channelPressure, channelPressures[Int(c)] != pressure {
                send(.channelPressure(channel: c, pressure: pressure))
            }
            for note in entry.notesOff where noteVelocities[Self.index(c, note)] > 0 {
                send(.noteOff(channel: c, note: note, velocity: 0))
            }
            for log in entry.notesOn where noteVelocities[Self.index(c, log.note)] != log.velocity {
                // A different velocity means a lost re-strike: end the old note, start the new one.
                if noteVelocities[Self.index(c, log.note)] > 0 { send(.noteOff(channel: c, note: log.note, velocity: 0)) }
                send(.noteOn(channel: c, note: log.note, velocity: log.velocity))
            }
        }
        return repairs
    }

    /// Note-offs for every sounding note (used when a peer vanishes). Applies them to `self`.
    mutating func releaseAllNotes() -> [MIDIMessage] {
        let offs = soundingNotes.map { MIDIMessage.noteOff(channel: $0.channel, note: $0.note, velocity: 0) }
        for off in offs { apply(off) }
        return offs
    }

    static func index(_ channel: UInt8, _ number: UInt8) -> Int { Int(channel & 0x0F) * 128 + Int(number & 0x7F) }
}
