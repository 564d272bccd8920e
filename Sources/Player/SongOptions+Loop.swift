import MIDIFile

extension SongOptions {
    /// These options with a region of `sequence` played `count` times in all: from `from` (default:
    /// `start`, else the beginning) to `to` (default: `end`, else the song's last tick, format 2
    /// patterns played one after another), as `seqplay --loop` plays it.
    public func looping(_ count: Int, from: PlaybackPosition? = nil, to: PlaybackPosition? = nil,
                        in sequence: MusicSequence) -> SongOptions {
        looping(count, from: from, to: to, endTick: sequence.concatenatingPatterns().durationInTicks)
    }

    /// These options with a region of `song` played `count` times in all, as
    /// `looping(_:from:to:in:)` says, the song's end read from its prepared tempo map.
    public func looping(_ count: Int, from: PlaybackPosition? = nil, to: PlaybackPosition? = nil,
                        in song: PreparedSong) -> SongOptions {
        looping(count, from: from, to: to, endTick: song.tempoMap.endTick)
    }

    private func looping(_ count: Int, from: PlaybackPosition?, to: PlaybackPosition?, endTick: Int64) -> SongOptions {
        var options = self
        options.loop = LoopRegion(from: from ?? start ?? .tick(0), to: to ?? end ?? .tick(max(0, endTick)), count: count)
        return options
    }
}
