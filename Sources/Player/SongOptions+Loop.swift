import MIDIFile

extension SongOptions {
    /// These options with a region of `sequence` played `count` times in all: from `from` (default:
    /// `start`, else the beginning) to `to` (default: `end`, else the song's last tick, format 2
    /// patterns played one after another), as `seqplay --loop` plays it.
    public func looping(_ count: Int, from: PlaybackPosition? = nil, to: PlaybackPosition? = nil,
                        in sequence: MusicSequence) -> SongOptions {
        var options = self
        let endTick = max(0, sequence.concatenatingPatterns().durationInTicks)
        options.loop = LoopRegion(from: from ?? start ?? .tick(0), to: to ?? end ?? .tick(endTick), count: count)
        return options
    }
}
