import Foundation
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// Plays a `MusicPlayer` (in nanoseconds) in real time to a `SongDestination` from its own thread,
/// for destinations that take events stamped with a clock time but have no queue of their own to
/// hold a whole song (sending to the network is not real-time safe, so it must not run on the
/// render thread).
///
/// Every millisecond (absolute deadlines on CLOCK_MONOTONIC) the thread takes the events due within
/// `lookahead` not yet sent, in one delivery (none when there are none), every event stamped with the
/// monotonic time (CLOCK_MONOTONIC nanoseconds, in `SongEvent.sampleTime`) at which it should sound:
/// player time `t` sounds at monotonic time `startTime + t`. A destination that sends simultaneous
/// events together groups them by their stamps. The lookahead lets the destination receive events
/// before they are due, so thread jitter below it never shows in the timing.
///
/// Control it (start, stop, wait) from one thread.
// Why unchecked: `startTime` and `started` are written by `start()` before the sending thread starts, which only reads them.
public final class RealtimeSequencer: @unchecked Sendable {
    public let player: MusicPlayer
    public let destination: any SongDestination
    /// How far ahead of their time events are sent (seconds).
    public let lookahead: Double
    /// Monotonic time (ns) of the player's sample 0; set by `start`.
    public private(set) var startTime: UInt64 = 0

    private static let tickNanoseconds: UInt64 = 1_000_000
    private let sending = ServiceThread()
    private var started = false

    public init(player: MusicPlayer, destination: any SongDestination, lookahead: Double = 0.02) {
        precondition(player.sampleRate == MusicPlayer.nanosecondRate, "a real-time sequencer's player counts nanoseconds")
        self.player = player
        self.destination = destination
        self.lookahead = lookahead
    }

    /// The monotonic time (ns) at which player time `sampleTime` (ns) sounds.
    public func monotonicTime(ofSample sampleTime: Int64) -> UInt64 {
        startTime + UInt64(max(0, sampleTime))
    }

    /// The monotonic time (ns) at which the song ends.
    public var endTime: UInt64 { monotonicTime(ofSample: player.durationInSamples) }

    /// Starts playing so that the player's sample 0 sounds at monotonic time `startTime` (default:
    /// one lookahead from now, so the first events are not late).
    public func start(at startTime: UInt64? = nil) {
        precondition(!started, "a RealtimeSequencer plays once")
        started = true
        self.startTime = startTime ?? MonotonicClock.now() + UInt64(lookahead * 1e9)
        sending.start(name: "RealtimeSequencer", qualityOfService: .userInteractive) { [self] in run() }
    }

    /// Stops sending after the events in progress and waits for the thread to end.
    public func stop() {
        sending.stop()
    }

    /// Waits until every event has been sent (or `stop()` was called).
    public func waitUntilFinished() {
        sending.join()
    }

    private func run() {
        let restamped = MonotonicStamps(destination, startTime: startTime)
        let lookaheadNanoseconds = Int64(lookahead * 1e9)
        var deadline = MonotonicClock.now()
        while !sending.isStopRequested {
            let horizon = Int64(bitPattern: MonotonicClock.now() &- startTime) + lookaheadNanoseconds
            if let next = player.nextEventSampleTime, next < horizon {
                player.deliverEvents(before: horizon, to: restamped)
            }
            if player.nextEventSampleTime == nil && horizon >= player.durationInSamples { return }
            deadline += Self.tickNanoseconds
            // Kept: the tick is time itself (an absolute deadline, so no drift); nothing else to wait on.
            MonotonicClock.wait(until: deadline)
        }
    }
}

/// Passes the player's events on with their times moved from player time to monotonic time.
private final class MonotonicStamps: SongDestination {
    private let destination: any SongDestination
    private let offset: Int64

    init(_ destination: any SongDestination, startTime: UInt64) {
        self.destination = destination
        offset = Int64(bitPattern: startTime)
    }

    func receive(_ event: SongEvent) {
        var stamped = event
        stamped.sampleTime = max(0, event.sampleTime) &+ offset
        destination.receive(stamped)
    }

    func endOfDelivery(before sampleTime: Int64) {
        destination.endOfDelivery(before: sampleTime &+ offset)
    }
}
