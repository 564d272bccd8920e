import MIDICore
import MIDIFile
import Player

/// How a song's MIDI channels are split among synthesizers: each group of channels plays on a
/// synthesizer of its own (same fonts, same settings), and the mix is the sum of the groups, in
/// group order. Because every synthesizer starts each voice the same way whatever else it plays
/// (`Synthesizer`), and FluidSynth's reverb and chorus are linear, any grouping sums to the render of
/// one synthesizer within float rounding: stems are groups, `--threads` renders groups in parallel,
/// `--jack-multi` gives each channel's group its own ports.
public struct ChannelGroups: Hashable, Sendable {
    /// The channels (0-based) of each group, in mix order. Channels in no group are not rendered.
    public var groups: [[Int]]

    public init(_ groups: [[Int]]) { self.groups = groups }

    /// One group per channel the song uses, in channel order.
    public static func perChannel(_ sequence: MusicSequence) -> ChannelGroups {
        ChannelGroups(channelsUsed(by: sequence).map { [$0] })
    }

    /// One group per channel `song` uses, in channel order.
    public static func perChannel(_ song: PreparedSong) -> ChannelGroups {
        ChannelGroups(song.channelsUsed.map { [$0] })
    }

    /// The used channels split into at most `count` groups of about equal expected load. The load of
    /// a note is `noteCost` of it (voice-seconds, from the fonts: `SongRenderer` asks a synthesizer),
    /// or without one 16 per note; channel messages count a little, so channels without notes still
    /// get a group. Each channel goes to the lightest group so far, heaviest channels first; groups
    /// come out in order of their lowest channel, so the split depends on the song (and the fonts)
    /// alone, never on the thread count.
    public static func balanced(_ sequence: MusicSequence, count: Int, noteCost: ((CostedNote) -> Double)? = nil) -> ChannelGroups {
        balanced(load: channelLoad(of: sequence, noteCost: noteCost), count: count)
    }

    /// The channels with `load` > 0 split into at most `count` groups, as `balanced(_:count:noteCost:)` does.
    static func balanced(load: [Double], count: Int) -> ChannelGroups {
        let used = load.indices.filter { load[$0] > 0 }
        let count = max(1, min(count, used.count))
        var groups = [[Int]](repeating: [], count: count)
        var totals = [Double](repeating: 0, count: count)
        for channel in used.sorted(by: { (load[$0], $1) > (load[$1], $0) }) {
            let lightest = totals.indices.min { (totals[$0], $0) < (totals[$1], $1) }!
            groups[lightest].append(channel)
            totals[lightest] += load[channel]
        }
        return ChannelGroups(groups.filter { !$0.isEmpty }.map { $0.sorted() }.sorted { $0[0] < $1[0] })
    }

    /// The channels (0-based) `sequence` sends channel messages on.
    public static func channelsUsed(by sequence: MusicSequence) -> [Int] {
        let load = channelLoad(of: sequence, noteCost: nil)
        return load.indices.filter { load[$0] > 0 }
    }

    /// A note as `balanced(_:count:noteCost:)` asks its cost: where it plays, with what selected, how long.
    public struct CostedNote: Hashable, Sendable {
        /// 0-based.
        public var channel: UInt8
        /// The channel's last bank selects (CC 0, CC 32) and program change before the note, in that order.
        public var setup: [MIDIMessage]
        public var key: UInt8
        public var velocity: UInt8
        /// From its note-on to its note-off (or the song's end).
        public var heldSeconds: Double
    }

    /// Per channel: the cost of its notes plus a little per other channel message (0: unused).
    private static func channelLoad(of sequence: MusicSequence, noteCost: ((CostedNote) -> Double)?) -> [Double] {
        guard let noteCost else {
            var load = [Double](repeating: 0, count: 16)
            for track in sequence.tracks {
                for timed in track.events {
                    guard case .midi(let message) = timed.event, let channel = message.channel else { continue }
                    if case .noteOn(_, _, let velocity) = message, velocity > 0 { load[Int(channel)] += 16 } else { load[Int(channel)] += 1 }
                }
            }
            return load
        }
        return walkNotes(of: PreparedSong(sequence)) { note, _ in noteCost(note) }
    }

    /// Walks the channels' messages in playing order, so each note is costed with the program in
    /// force, calling `note` with each note and the second it starts at (from the song's start).
    /// Returns per channel the sum of what `note` returned for its notes plus 1e-3 per other channel
    /// message (0: unused).
    static func walkNotes(of song: PreparedSong, note noteCost: (CostedNote, _ startSeconds: Double) -> Double) -> [Double] {
        var load = [Double](repeating: 0, count: 16)
        let timeline = song.timeline
        let map = song.tempoMap
        var setups = [[Int: MIDIMessage]](repeating: [:], count: 16)  // 0: CC 0, 1: CC 32, 2: program
        var setupLists = [[MIDIMessage]](repeating: [], count: 16)  // each channel's setups in that order (shared by its notes)
        var pairing = NotePairing<(tick: Int64, setup: [MIDIMessage], velocity: UInt8)>()
        func release(_ note: NotePairing<(tick: Int64, setup: [MIDIMessage], velocity: UInt8)>.HeldNote, at tick: Int64) {
            let start = map.seconds(atTick: note.start.tick)
            let seconds = map.seconds(atTick: tick) - start
            load[Int(note.channel)] += noteCost(CostedNote(channel: note.channel, setup: note.start.setup, key: note.key,
                                                           velocity: note.start.velocity, heldSeconds: seconds), start)
        }
        timeline.forEachEventInTickOrder { _, _, timed in
            guard case .midi(let message) = timed.event, let channel = message.channel.map(Int.init) else { return }
            let tick = timed.tick
            let setupSlot: Int?
            switch message {
            case .noteOn, .noteOff:
                if let ended = pairing.pair(message, start: { _, _, velocity in (tick, setupLists[channel], velocity) }) {
                    release(ended, at: tick)
                }
                return
            case .controlChange(_, 0, _): setupSlot = 0
            case .controlChange(_, 32, _): setupSlot = 1
            case .programChange: setupSlot = 2
            default: setupSlot = nil
            }
            if let setupSlot {
                setups[channel][setupSlot] = message
                setupLists[channel] = setups[channel].sorted { $0.key < $1.key }.map(\.value)
            }
            load[channel] += 1e-3
        }
        for note in pairing.endAll() { release(note, at: map.endTick) }
        return load
    }
}
