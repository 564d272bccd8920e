import MIDICore

/// Works out which of the messages sent so far are needed to put a sampler in the same state again
/// (controllers, programs, pitch bend, pressure, SysEx), as when playback starts or jumps mid-song, or
/// when a file is cut (`MusicSequence.excerpt`).
public enum Chase {
    /// The messages among `history` (in the order sent) that rebuild the state it leaves: notes and
    /// system common/real-time messages are dropped; for pitch bend, channel pressure, program change
    /// and most controllers only the last per channel (and controller) is kept; bank select, RPN/NRPN
    /// selection and data entry (whose meaning depends on order) and SysEx are all kept. The result
    /// keeps the original order.
    public static func stateMessages<S: Sequence>(from history: S) -> [(track: Int, message: MIDIMessage)]
    where S.Element == (track: Int, message: MIDIMessage) {
        stateEntries(from: history, message: \.message)
    }

    /// The entries of `history` whose `message` (nil: not a MIDI message) `stateMessages` would keep.
    public static func stateEntries<S: Sequence>(from history: S, message: (S.Element) -> MIDIMessage?) -> [S.Element] {
        let candidates = history.compactMap { entry in message(entry).flatMap(key).map { (entry, $0) } }
        var lastIndex: [Int: Int] = [:]
        for (index, candidate) in candidates.enumerated() where candidate.1 >= 0 {
            lastIndex[candidate.1] = index
        }
        return candidates.enumerated().compactMap { index, candidate in
            candidate.1 < 0 || lastIndex[candidate.1] == index ? candidate.0 : nil
        }
    }

    /// Controllers whose every occurrence matters, in order: bank select (0, 32), data entry (6, 38),
    /// data increment/decrement (96, 97) and NRPN/RPN selection (98...101).
    private static let orderedControllers: Set<UInt8> = [0, 32, 6, 38, 96, 97, 98, 99, 100, 101]

    /// `nil` for messages a chase drops, -1 for messages all kept, otherwise the key under which only
    /// the last message is kept.
    private static func key(of message: MIDIMessage) -> Int? {
        switch message {
        case .controlChange(let channel, let controller, _):
            return orderedControllers.contains(controller) ? -1 : Int(channel) << 8 | Int(controller)
        case .programChange(let channel, _): return Int(channel) << 8 | 0x80
        case .pitchBend(let channel, _): return Int(channel) << 8 | 0x81
        case .channelPressure(let channel, _): return Int(channel) << 8 | 0x82
        case .systemExclusive: return -1
        default: return nil
        }
    }
}
