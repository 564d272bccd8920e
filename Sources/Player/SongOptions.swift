import MIDIFile

/// A place in a sequence, in the sequence's own time (as at rate 1).
public enum PlaybackPosition: Hashable, Sendable {
    case tick(Int64)
    case seconds(Double)
    case barBeatTick(BarBeatTick)

    /// The tick this position falls on (for seconds, the first tick at or after it).
    public func tick(in map: TempoMap) -> Int64 {
        switch self {
        case .tick(let tick): return max(0, tick)
        case .seconds(let seconds): return map.tick(atSeconds: seconds)
        case .barBeatTick(let position): return map.tick(at: position)
        }
    }

    /// A place as a person writes it, and `seqplay info` prints it: seconds (`42`, `12.5`, `12.5s`) or
    /// bar:beat[:tick] (`17:1`, `9:3:240`); nil when it is neither. Any number parses as seconds (NaN,
    /// negative), so the caller's range check can say what is wrong with it.
    public init?(_ text: String) {
        if text.contains(":") {
            guard let barBeatTick = BarBeatTick(text) else { return nil }
            self = .barBeatTick(barBeatTick)
        } else {
            guard let seconds = Double(text.hasSuffix("s") ? String(text.dropLast()) : text) else { return nil }
            self = .seconds(seconds)
        }
    }
}

/// A region [from, to) that plays `count` times in all before playback carries on past `to`.
public struct LoopRegion: Hashable, Sendable {
    public var from: PlaybackPosition
    public var to: PlaybackPosition
    /// How many times the region plays (1 plays it once, as without a loop).
    public var count: Int

    public init(from: PlaybackPosition, to: PlaybackPosition, count: Int) {
        self.from = from; self.to = to; self.count = count
    }
}

/// How a song plays, whatever it plays to: what a `MusicPlayer` takes and applies itself. The part of
/// the song played (start, end, loop), how (transpose, rate), which tracks a destination plays, MIDI
/// clock, and which tracks and channels sound at first (mute and solo, as a mixer has them; the
/// player's setters change them while it plays).
///
/// Every destination of a song (the sampler, ALSA ports, a network session, a JACK MIDI port) plays
/// the same `SongOptions`, so they play the same song; `seqplay convert` writes them into a file.
public struct SongOptions: Hashable, Sendable {
    /// The longest playback a player schedules, loops included: 24 hours.
    public static let maximumDuration: Double = 24 * 3600

    /// Semitones added to every note, except on channel 10 (drums, channel index 9). Notes pushed
    /// outside 0...127 are dropped.
    public var transpose: Int = 0
    /// Tempo scale: 2 plays twice as fast. Kept to 1/10000 (0.01...100).
    public var rate: Double = 1
    /// Where playback starts (the beginning when `nil`); controller, program, pitch-bend and SysEx
    /// state from before it is sent at sample 0.
    public var start: PlaybackPosition?
    /// Where playback stops (the sequence's end, End of Track included, when `nil`). A sequence of
    /// length zero (only set-up events at tick 0) without start, end or loop plays one tick, so its
    /// tick-0 events are sent.
    public var end: PlaybackPosition?
    /// A region to repeat; ignored unless it lies after the start and before the end.
    public var loop: LoopRegion?
    /// The tracks played (as `seqplay info` numbers them, from 0); all when `nil`. A destination
    /// that gets only some tracks of a song (AVAudioSequencer's track destinations) plays these.
    public var tracks: Set<Int>?
    /// Adds MIDI clock: Song Position and Start (Continue from a later position) first, 24 Timing
    /// Clocks per quarter note (before the song's events at the same time), Stop, Song Position and
    /// Continue at each loop jump, Stop at the end. For destinations that drive other sequencers.
    public var midiClock = false
    /// Track indexes (0-based, as `seqplay info` lists them) whose notes are silenced.
    public var mutedTracks: Set<Int> = []
    /// Track indexes to play alone (with any other soloed tracks).
    public var soloedTracks: Set<Int> = []
    /// Channel indexes (0-based: channel 10 is 9) whose notes are silenced.
    public var mutedChannels: Set<Int> = []
    /// Channel indexes to play alone (with any other soloed channels).
    public var soloedChannels: Set<Int> = []

    public init(transpose: Int = 0, rate: Double = 1, start: PlaybackPosition? = nil, end: PlaybackPosition? = nil,
                loop: LoopRegion? = nil, tracks: Set<Int>? = nil, midiClock: Bool = false,
                mutedTracks: Set<Int> = [], soloedTracks: Set<Int> = [], mutedChannels: Set<Int> = [], soloedChannels: Set<Int> = []) {
        self.transpose = transpose; self.rate = rate; self.start = start; self.end = end; self.loop = loop
        self.tracks = tracks; self.midiClock = midiClock; self.mutedTracks = mutedTracks
        self.soloedTracks = soloedTracks; self.mutedChannels = mutedChannels; self.soloedChannels = soloedChannels
    }
}

// MARK: Mute and solo

extension SongOptions {
    /// The mixer's rule, the one place it is written: a track (or channel) sounds unless muted and,
    /// while any is soloed, only if it is soloed too. A note sounds when its track and its channel do.
    @inlinable
    public static func sounds(muted: Bool, soloed: Bool, anySoloed: Bool) -> Bool {
        !muted && (!anySoloed || soloed)
    }

    /// Whether notes of `track` sound (its channel's mute and solo aside).
    public func isTrackAudible(_ track: Int) -> Bool {
        Self.sounds(muted: mutedTracks.contains(track), soloed: soloedTracks.contains(track), anySoloed: !soloedTracks.isEmpty)
    }

    /// Whether notes on 0-based `channel` sound (their track's mute and solo aside).
    public func isChannelAudible(_ channel: Int) -> Bool {
        Self.sounds(muted: mutedChannels.contains(channel), soloed: soloedChannels.contains(channel), anySoloed: !soloedChannels.isEmpty)
    }

    /// Whether notes of `track` on 0-based `channel` sound.
    public func isAudible(track: Int, channel: Int) -> Bool {
        isTrackAudible(track) && isChannelAudible(channel)
    }

    /// True when a track or channel is muted or soloed.
    public var hasMutesOrSolos: Bool {
        !(mutedTracks.isEmpty && soloedTracks.isEmpty && mutedChannels.isEmpty && soloedChannels.isEmpty)
    }

    /// Checks that every muted or soloed track is one of `trackCount` and every channel one of 16.
    public func checkMutesAndSolos(trackCount: Int) throws(SongOptionsError) {
        for track in mutedTracks.union(soloedTracks).sorted() where !(0..<trackCount).contains(track) {
            throw .noSuchTrack(track, trackCount: trackCount)
        }
        for channel in mutedChannels.union(soloedChannels).sorted() where !(0..<16).contains(channel) {
            throw .noSuchChannel(channel)
        }
    }
}

/// Why a `MusicPlayer` cannot play a sequence with the given `SongOptions`.
public enum SongOptionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A rate outside 0.01...100 (or not a number).
    case rateOutOfRange(Double)
    /// A time unit outside 1...10⁹ per second (audio sample rates, up to nanoseconds).
    case sampleRateOutOfRange(Int)
    /// A loop whose end is not after its start, or whose count is below 1.
    case invalidLoop(fromTick: Int64, toTick: Int64, count: Int)
    /// A start position after the end position (at the end gives an empty playback).
    case startAfterEnd(startTick: Int64, endTick: Int64)
    /// A playback longer than `SongOptions.maximumDuration` (a hostile or broken file, usually:
    /// a few bytes can declare centuries).
    case tooLong(seconds: Double)
    /// A track to mute, solo or play that the sequence does not have.
    case noSuchTrack(Int, trackCount: Int)
    /// A channel index to mute or solo outside 0...15.
    case noSuchChannel(Int)

    public var description: String {
        switch self {
        case .rateOutOfRange(let rate): return "playback rate \(rate) is outside 0.01...100"
        case .sampleRateOutOfRange(let rate): return "sample rate \(rate) Hz is outside 1...1000000000"
        case .invalidLoop(let from, let to, let count):
            return "loop from tick \(from) to tick \(to), \(count) times: needs from < to and a count of at least 1"
        case .startAfterEnd(let start, let end): return "start (tick \(start)) is after end (tick \(end))"
        case .tooLong(let seconds):
            let hours = seconds / 3600
            return "the playback would last \(hours < 1e9 ? "\(Int(hours.rounded(.up)))" : "over a billion") hours; "
                + "seqplay plays at most \(Int(SongOptions.maximumDuration / 3600)) (choose a part with --start/--end)"
        case .noSuchTrack(let track, let count):
            return "there is no track \(track): the song's tracks are 0...\(max(0, count - 1)) (see `seqplay info`)"
        case .noSuchChannel(let channel): return "there is no channel \(channel + 1): channels are 1...16"
        }
    }
}
