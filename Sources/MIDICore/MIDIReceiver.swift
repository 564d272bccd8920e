/// Anything that MIDI can be sent to now: a sampler, an ALSA sequencer port, a network session.
/// (A song's scheduler plays to `SongDestination`s, in module Player: the same endpoints, given each
/// event's time, track and port.)
///
/// `receive` may be called on a real-time thread (the audio render thread): implementations must not
/// block, allocate or do I/O there.
public protocol MIDIReceiver: AnyObject {
    /// Acts on one message immediately.
    func receive(_ message: MIDIMessage)

    /// Acts on `message`, which its source has due at `sampleTime` (in the sample time of the source's
    /// `deliverEvents(before:to:)`). A `ScheduledMIDISource` that knows when its events are due (a
    /// song's player, a queue of timed events) hands each over this way, so that a receiver placing
    /// events within a block (an LV2 instrument, a router queuing them for other threads) has its
    /// time without asking the source one due time at a time; sources that do not know (live input)
    /// call `receive(_:)`. Default: `receive(message)`.
    func receive(_ message: MIDIMessage, at sampleTime: Int64)
}

extension MIDIReceiver {
    public func receive(_ message: MIDIMessage, at sampleTime: Int64) { receive(message) }
}

/// A source of MIDI events placed in audio sample time, pulled by whoever renders audio.
///
/// A renderer that works in blocks calls `deliverEvents(before:to:)` before rendering each block, so
/// events land on the sample grid of the audio they affect. Called on the render thread: it must not
/// block, allocate or do I/O.
public protocol ScheduledMIDISource: AnyObject {
    /// Sends to `receiver`, in order, every pending event whose sample time is less than `sampleTime`,
    /// and marks them delivered: with its time (`MIDIReceiver.receive(_:at:)`) when the source knows it.
    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver)

    /// The sample time of the earliest event not delivered yet, or nil when none is left, so a
    /// renderer may render up to it without asking again. Sources whose events arrive while audio
    /// renders (live input) answer `Int64.min`, the default: ask before every block.
    var nextEventSampleTime: Int64? { get }
}

extension ScheduledMIDISource {
    public var nextEventSampleTime: Int64? { .min }
}

/// Note names as musicians write them: 60 is "C4", 69 is "A4".
public enum NoteName {
    private static let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

    /// The name of MIDI note `note`, e.g. "C4" for 60.
    public static func of(_ note: UInt8) -> String {
        names[Int(note) % 12] + String(Int(note) / 12 - 1)
    }
}
