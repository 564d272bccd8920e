/// Where a `MusicPlayer` plays a song: the one protocol of the scheduler's destinations. The sampler
/// (`SamplerNode`), ALSA sequencer ports on a kernel queue (`SequencerSongPlayer`), a network MIDI
/// session (through `RealtimeSequencer`) and a JACK MIDI port (`JACKSongMIDIOutput`) all take a song
/// this way, and a new kind of destination is one more type that conforms.
///
/// Whoever drives the destination (an audio render thread, JACK's process callback, a sender
/// thread) pulls its player with `MusicPlayer.deliverEvents(before:to:)`: the player hands
/// `receive(_:)` every event due before that time, in order, each stamped with its time in the
/// player's unit (`SongEvent.sampleTime`: audio samples, or nanoseconds), its track and SMF port,
/// then calls `endOfDelivery(before:)` once. A destination that acts on each message at once (a
/// sampler about to render the block its events fall in) ignores the stamp; one that schedules
/// messages (a kernel queue, RTP-MIDI timestamps, a JACK MIDI buffer) turns the stamp into a time
/// of its own clock, and may gather one delivery's events to send them together.
///
/// Both are called on the driving thread. A destination driven by a real-time thread must not
/// block, allocate or do I/O there.
public protocol SongDestination: AnyObject {
    /// Takes the next event of the song, due at `event.sampleTime`.
    func receive(_ event: SongEvent)

    /// Every event due before `sampleTime` has been received (one pull of the player). Default: nothing.
    func endOfDelivery(before sampleTime: Int64)
}

extension SongDestination {
    public func endOfDelivery(before sampleTime: Int64) {}
}

/// A destination that keeps every event it is handed, in order: a playback listed, two compared, a
/// destination's input checked against what the player hands out.
///
/// ```swift
/// let log = SongEventLog()
/// player.deliverEvents(before: .max, to: log)   // the whole playback: log.events
/// ```
public final class SongEventLog: SongDestination {
    /// The events received so far, in order.
    public private(set) var events: [SongEvent] = []

    /// An empty log.
    public init() {}

    public func receive(_ event: SongEvent) { events.append(event) }
}
