import Atomics
import MIDICore
import SeqplaySupport

/// A sampler's event source that plays a song on request over another source (a live host's input):
/// the base source's messages first, then those of the `MusicPlayer` started with `play(_:)`, its
/// time 0 at the block where the render thread takes the request. `stop()` ends the notes the song
/// has sounding (and only those). The control thread hands players over through a lock-free queue
/// and keeps them alive until the render thread has let go (`isSettled`), so the render thread
/// neither allocates, locks nor releases anything.
///
/// `play` and `stop` come from one thread at a time (the caller serialises them); the render thread
/// calls `deliverEvents` as every event source's.
// Why unchecked: `play`/`stop` are serialised by the caller and hand players to the render thread through a lock-free queue; the render thread alone delivers (above).
public final class SongFeedSource: ScheduledMIDISource, @unchecked Sendable {
    private enum Request {
        case none
        case play(Unmanaged<MusicPlayer>, channels: UInt16)
        case stop
    }

    /// The live source under the song (its messages go first).
    public let base: any ScheduledMIDISource
    private let requests = SingleProducerQueue<Request>(capacity: 16, filler: .none)
    /// Requests the render thread has handled (control side compares with `sent`).
    private let handled = ManagedAtomic<Int>(0)
    private var sent = 0
    /// Players handed to the render thread: kept alive here until it has let go of them.
    private var players: [(player: MusicPlayer, request: Int)] = []
    private var current: MusicPlayer?

    // Render-thread state.
    private var playing: Unmanaged<MusicPlayer>?
    /// The channels the song playing sends on (bit n: channel n): their pedals are let go when it ends.
    private var playingChannels: UInt16 = 0
    private var origin: Int64 = 0
    private var lastBefore: Int64 = 0
    /// Hands the song's events on with their times in the feed's (`origin` added).
    private let shifted = ShiftedReceiver()

    /// A feed over `base` playing no song yet.
    public init(base: any ScheduledMIDISource) {
        self.base = base
    }

    /// Starts `player` (made at the output's sample rate) from its time 0 at the next block, ending
    /// the notes of a song playing. `channels` (bit n: channel n, 0-based) are those the song sends
    /// on: when it ends, their sustain and sostenuto pedals are let go too (the notes the pedals hold
    /// are the song's). Returns false when the render thread is too far behind (16 requests waiting).
    @discardableResult
    public func play(_ player: MusicPlayer, channels: UInt16 = 0xFFFF) -> Bool {
        release()
        if let current { for channel in 0..<16 { current.setChannel(channel, muted: true) } }
        // Which tracks and channels sound is worked out here, not on the render thread.
        player.settleAudibility()
        guard requests.append(.play(Unmanaged.passUnretained(player), channels: channels)) else { return false }
        sent += 1
        players.append((player, sent))
        current = player
        return true
    }

    /// Ends the song's sounding notes at the next block and plays no song from then on.
    public func stop() {
        release()
        guard let current else { return }
        for channel in 0..<16 { current.setChannel(channel, muted: true) }
        guard requests.append(.stop) else { return }
        sent += 1
        self.current = nil
    }

    /// The player playing (or about to), nil when none.
    public var player: MusicPlayer? { current }

    /// Whether the render thread has taken every request made so far.
    public var isSettled: Bool { handled.load(ordering: .acquiring) >= sent }

    /// Lets go of the players the render thread no longer plays.
    private func release() {
        let done = handled.load(ordering: .acquiring)
        players.removeAll { $0.request <= done && $0.player !== current }
    }

    // MARK: Render thread

    public func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        base.deliverEvents(before: sampleTime, to: receiver)
        while let request = requests.removeFirst() {
            switch request {
            case .none:
                break
            case .play(let next, let channels):
                endPlaying(receiver)
                playing = next
                playingChannels = channels
                origin = sampleTime - Int64(32)
                lastBefore = sampleTime
            case .stop:
                endPlaying(receiver)
            }
            handled.wrappingIncrement(ordering: .releasing)
        }
        guard let playing else { return }
        lastBefore = sampleTime
        deliver(playing.takeUnretainedValue(), before: sampleTime, to: receiver)
    }

    /// `player`'s events before feed time `sampleTime`, to `receiver` at their feed times.
    private func deliver(_ player: MusicPlayer, before sampleTime: Int64, to receiver: any MIDIReceiver) {
        shifted.target = receiver
        shifted.offset = origin
        player.deliverEvents(before: sampleTime - origin, to: shifted)
        shifted.target = nil
    }

    /// Delivers nothing new from the song playing but the ends of its notes (its channels are muted
    /// by then) and its pedals let go, and lets it go.
    private func endPlaying(_ receiver: any MIDIReceiver) {
        guard let player = playing else { return }
        deliver(player.takeUnretainedValue(), before: lastBefore, to: receiver)
        for channel in 0..<16 where playingChannels & (1 << channel) != 0 {
            receiver.receive(.controlChange(channel: UInt8(channel), controller: 64, value: 0))
            receiver.receive(.controlChange(channel: UInt8(channel), controller: 66, value: 0))
        }
        playing = nil
    }

    public var nextEventSampleTime: Int64? {
        let live = base.nextEventSampleTime
        if requests.first != nil { return .min }
        guard let playing else { return live }
        guard let next = playing.takeUnretainedValue().nextEventSampleTime.map({ $0 + origin }) else { return live }
        return min(live ?? .max, next)
    }
}

/// A receiver that hands messages on to `target`, their times moved by `offset`.
private final class ShiftedReceiver: MIDIReceiver {
    var target: (any MIDIReceiver)?
    var offset: Int64 = 0

    func receive(_ message: MIDIMessage) { target?.receive(message) }

    func receive(_ message: MIDIMessage, at sampleTime: Int64) { target?.receive(message, at: sampleTime + offset) }
}
