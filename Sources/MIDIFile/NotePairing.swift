import MIDICore

/// Notes paired with their note-offs, by the one rule every reader of notes in seqplay follows
/// (the roll, the render's channel-group costs, quantizing, `info`, the batch's labels):
///
/// - A Note On with velocity > 0 starts a note; a Note Off, or a Note On with velocity 0, ends one.
/// - Notes are paired per channel and key, first in first out: an end ends the **oldest** note of
///   its channel and key still held (two overlapping C4s on one channel end in the order they
///   started). An end with no note held is ignored.
/// - A note never ended is ended by the caller at the end of the song (`endAll()`, which gives
///   them by channel, then key, then start).
///
/// Which events are paired is the caller's: one track's (the roll, quantizing) or the whole song
/// merged in playing order, as a synthesizer hears it (channel groups, `info`, the labels).
/// `Start` is what a note records when it starts (its tick, velocity, an index…).
public struct NotePairing<Start> {
    /// Per channel × 128 + key, the notes held, oldest first.
    @usableFromInline var held: [[Start]]

    @inlinable
    public init() {
        held = Array(repeating: [], count: 16 * 128)
    }

    /// One held note: its channel, key and what it recorded when it started.
    public typealias HeldNote = (channel: UInt8, key: UInt8, start: Start)

    /// Starts a note of `key` on `channel` (0-based).
    @inlinable
    public mutating func start(channel: UInt8, key: UInt8, _ start: Start) {
        held[Self.slot(channel, key)].append(start)
    }

    /// Ends the oldest note of `key` held on `channel`; what it recorded, or nil when none is held.
    @inlinable
    public mutating func end(channel: UInt8, key: UInt8) -> Start? {
        let slot = Self.slot(channel, key)
        guard !held[slot].isEmpty else { return nil }
        return held[slot].removeFirst()
    }

    /// Applies `message` when it is a note message: starts a note (what it records is `start` of
    /// its channel, key and velocity) or ends one. Returns the note ended, nil for anything else.
    @inlinable
    public mutating func pair(_ message: MIDIMessage, start: (_ channel: UInt8, _ key: UInt8, _ velocity: UInt8) -> Start) -> HeldNote? {
        switch message {
        case .noteOn(let channel, let key, let velocity) where velocity > 0:
            self.start(channel: channel, key: key, start(channel, key, velocity))
            return nil
        case .noteOn(let channel, let key, _), .noteOff(let channel, let key, _):
            return end(channel: channel, key: key).map { (channel, key, $0) }
        default:
            return nil
        }
    }

    /// Ends every note held on `channel` (All Notes Off, All Sound Off): by key, oldest first.
    @inlinable
    public mutating func endAll(channel: UInt8) -> [HeldNote] {
        var ended: [HeldNote] = []
        for key in 0..<UInt8(128) {
            while let start = end(channel: channel, key: key) { ended.append((channel, key, start)) }
        }
        return ended
    }

    /// Ends every note held: by channel, then key, then start.
    @inlinable
    public mutating func endAll() -> [HeldNote] {
        (0..<UInt8(16)).flatMap { endAll(channel: $0) }
    }

    @inlinable
    static func slot(_ channel: UInt8, _ key: UInt8) -> Int { Int(channel & 0x0F) * 128 + Int(key & 0x7F) }
}

/// A note of a track: from its Note On to its Note Off (`NotePairing`'s rule), in ticks.
public struct PairedNote: Hashable, Sendable {
    public var start: Int64
    public var end: Int64
    /// 0-based.
    public var channel: UInt8
    public var key: UInt8
    public var velocity: UInt8
    /// The index of the track in the sequence.
    public var track: Int

    public init(start: Int64, end: Int64, channel: UInt8, key: UInt8, velocity: UInt8, track: Int) {
        self.start = start; self.end = end; self.channel = channel; self.key = key; self.velocity = velocity
        self.track = track
    }
}

extension MusicSequence {
    /// The notes of each track, paired within the track by `NotePairing`'s rule; notes never ended
    /// end at `endTick` (default: the end of the longest track). Track by track; within a track, in
    /// the order they end, then those never ended by channel, key and start.
    public func pairedNotes(endTick: Int64? = nil) -> [PairedNote] {
        let endTick = endTick ?? tracks.map(\.durationInTicks).max() ?? 0
        var notes: [PairedNote] = []
        for (index, track) in tracks.enumerated() {
            var pairing = NotePairing<(tick: Int64, velocity: UInt8)>()
            func note(_ ended: NotePairing<(tick: Int64, velocity: UInt8)>.HeldNote, at tick: Int64) -> PairedNote {
                PairedNote(start: ended.start.tick, end: tick, channel: ended.channel, key: ended.key,
                           velocity: ended.start.velocity, track: index)
            }
            for timed in track.events {
                guard case .midi(let message) = timed.event else { continue }
                if let ended = pairing.pair(message, start: { _, _, velocity in (timed.tick, velocity) }) {
                    notes.append(note(ended, at: timed.tick))
                }
            }
            notes += pairing.endAll().map { note($0, at: endTick) }
        }
        return notes
    }
}
