import MIDICore

extension MusicSequence {
    /// The sequence with every note moved `semitones`, as `MusicPlayer` transposes: channel 10 (drums,
    /// index 9) stays put, and notes (and their pressure) pushed outside 0...127 are dropped.
    public func transposed(by semitones: Int) -> MusicSequence {
        guard semitones != 0 else { return self }
        var result = self
        for index in result.tracks.indices {
            result.tracks[index].events = result.tracks[index].events.compactMap { timed in
                guard case .midi(let message) = timed.event else { return timed }
                return message.transposed(by: semitones).map { TimedEvent(tick: timed.tick, .midi($0)) }
            }
        }
        return result
    }

    /// The sequence without the notes (note-ons, note-offs and poly pressure) for which
    /// `isSilenced(track, channel)` holds, as `MusicPlayer` mutes: the tracks' other messages
    /// (controllers, programs, SysEx) stay, so what is heard of the rest is unchanged.
    public func removingNotes(where isSilenced: (_ track: Int, _ channel: UInt8) -> Bool) -> MusicSequence {
        var result = self
        for index in result.tracks.indices {
            result.tracks[index].events.removeAll { timed in
                guard case .midi(let message) = timed.event, let channel = message.channel else { return false }
                switch message {
                case .noteOn, .noteOff, .polyPressure: return isSilenced(index, channel)
                default: return false
                }
            }
        }
        return result
    }
}

/// Which tracks and channels sound, from mute and solo lists as a mixer has them: a track (or channel)
/// sounds unless muted, and, when any are soloed, only if soloed. Both must sound for a note to.
public struct MuteSolo: Hashable, Sendable {
    public var mutedTracks: Set<Int>
    public var soloedTracks: Set<Int>
    public var mutedChannels: Set<Int>
    public var soloedChannels: Set<Int>

    /// Mutes and solos of tracks (0-based, as `seqplay info` numbers them) and channels (0-based).
    public init(mutedTracks: Set<Int> = [], soloedTracks: Set<Int> = [], mutedChannels: Set<Int> = [], soloedChannels: Set<Int> = []) {
        self.mutedTracks = mutedTracks
        self.soloedTracks = soloedTracks
        self.mutedChannels = mutedChannels
        self.soloedChannels = soloedChannels
    }

    /// Whether notes of `track` on `channel` (0-based) are heard.
    public func isAudible(track: Int, channel: Int) -> Bool {
        !mutedTracks.contains(track) && (soloedTracks.isEmpty || soloedTracks.contains(track))
            && !mutedChannels.contains(channel) && (soloedChannels.isEmpty || soloedChannels.contains(channel))
    }

    /// True when nothing is muted or soloed.
    public var isEmpty: Bool {
        mutedTracks.isEmpty && soloedTracks.isEmpty && mutedChannels.isEmpty && soloedChannels.isEmpty
    }
}
