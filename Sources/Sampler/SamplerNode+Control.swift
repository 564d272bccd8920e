import MIDICore
import Player

/// Control of a running sampler from other threads: messages and settings queued for the render thread.
extension SamplerNode {
    /// Queues a channel voice message for the render thread (`Synthesizer.enqueue`): from a control
    /// thread, while the engine runs or not.
    public func enqueue(_ message: MIDIMessage) { synthesizer.enqueue(message) }

    /// Mutes or unmutes `channel` (0-based; `Synthesizer.setMuted`).
    public func setMuted(_ muted: Bool, channel: UInt8) { synthesizer.setMuted(muted, channel: channel) }

    /// Sets the reverb parameters given, between two render cycles (`Synthesizer.setReverb`).
    public func setReverb(roomSize: Double? = nil, damping: Double? = nil, width: Double? = nil, level: Double? = nil) {
        synthesizer.setReverb(roomSize: roomSize, damping: damping, width: width, level: level)
        changeEngine { $0.setReverb(.init(roomSize: roomSize, damping: damping, width: width, level: level)) }
    }

    /// Sets the chorus parameters given, between two render cycles (`Synthesizer.setChorus`).
    public func setChorus(voices: Int? = nil, level: Double? = nil, speed: Double? = nil, depth: Double? = nil) {
        synthesizer.setChorus(voices: voices, level: level, speed: speed, depth: depth)
        changeEngine { $0.setChorus(.init(voices: voices, level: level, speed: speed, depth: depth)) }
    }

    /// Makes seqplay's engine, when it plays, do `change` between two render cycles (as FluidSynth's effect
    /// parameters change): the render thread never waits for it.
    func changeEngine(_ change: (SoundFontEngine) -> Void) {
        guard soundFontEngine != nil else { return }
        synthesizer.withSynthBetweenCycles {
            if let soundFontEngine { change(soundFontEngine) }
        }
    }

    /// Gives `engine` the reverb and chorus `settings` set, as `Synthesizer.apply(_:)` gives them to FluidSynth:
    /// each on unless it says off, the parameters given set, the others as they were.
    static func applyEffects(of settings: SamplerSettings, to engine: SoundFontEngine) {
        var reverb = settings.reverb, chorus = settings.chorus
        reverb.isEnabled = reverb.isEnabled ?? true
        chorus.isEnabled = chorus.isEnabled ?? true
        engine.setReverb(reverb)
        engine.setChorus(chorus)
    }

    /// What each channel plays and its volume and pan, as the render thread last set them.
    public var channelStatus: ChannelStatusTable { synthesizer.channelStatus }

    /// Publishes every channel's state to `channelStatus` now (between render cycles).
    public func refreshChannelStatus() { synthesizer.refreshChannelStatus() }
}

/// The sampler as a song's destination: each event plays at once, as `receive(_:)` plays a message
/// (the player is pulled block by block, so "at once" is on the 64-frame grid nearest its time).
extension SamplerNode: SongDestination {
    public func receive(_ event: SongEvent) {
        receive(event.message)
    }
}
