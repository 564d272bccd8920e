import Atomics
import MIDICore
import MIDIFile

/// Muting and soloing a player's tracks and channels, from any thread; the render thread applies them at its next delivery.
extension MusicPlayer {
    public func setTrack(_ track: Int, muted: Bool) { set(trackMuted[track], muted) }
    public func setTrack(_ track: Int, soloed: Bool) { set(trackSoloed[track], soloed) }
    /// Mutes a 0-based channel (channel 10 is 9).
    public func setChannel(_ channel: Int, muted: Bool) { set(channelMuted[channel], muted) }
    /// Solos a 0-based channel: while any channel is soloed only soloed channels sound (and likewise
    /// for tracks; with both, a note sounds when its track and its channel pass).
    public func setChannel(_ channel: Int, soloed: Bool) { set(channelSoloed[channel], soloed) }

    public func isTrackMuted(_ track: Int) -> Bool { trackMuted[track].load(ordering: .relaxed) }
    public func isTrackSoloed(_ track: Int) -> Bool { trackSoloed[track].load(ordering: .relaxed) }
    public func isChannelMuted(_ channel: Int) -> Bool { channelMuted[channel].load(ordering: .relaxed) }
    public func isChannelSoloed(_ channel: Int) -> Bool { channelSoloed[channel].load(ordering: .relaxed) }

    private func set(_ flag: ManagedAtomic<Bool>, _ value: Bool) {
        flag.store(value, ordering: .relaxed)
        audibilityGeneration.wrappingIncrement(ordering: .releasing)
    }
}
