import MIDICore

extension MusicSequence {
    /// How many notes `transposed(by: semitones)` drops: note-ons (velocity above 0) off channel 10
    /// that it moves outside 0...127.
    public func noteCountDropped(transposingBy semitones: Int) -> Int {
        guard semitones != 0 else { return 0 }
        return tracks.reduce(0) { count, track in
            count + track.events.filter { timed in
                guard case .midi(.noteOn(let channel, let note, let velocity)) = timed.event, channel != 9, velocity > 0 else { return false }
                return !(0...127).contains(Int(note) + semitones)
            }.count
        }
    }

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
    /// `isSilenced(track, channel)` holds, as `MusicPlayer` mutes (`SongOptions.isAudible` says what
    /// sounds): the tracks' other messages (controllers, programs, SysEx) stay, so what is heard of
    /// the rest is unchanged.
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
