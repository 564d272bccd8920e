import ALSA
import Atomics
import MIDICore
#if canImport(Glibc)
import Glibc
#endif

/// Plays a `SequencerSchedule` to ALSA sequencer ports: the events go out ahead of time on a kernel
/// queue with real-time timestamps, so the kernel delivers each at its exact time. Stopping early drops
/// what is still pending and sends Sustain Off and All Notes Off on every channel of every destination.
///
/// Like aplaymidi, the player connects its port to every destination before playing: kernel drivers
/// (hardware MIDI ports, snd-virmidi) only open their device for a port that has a subscriber, and
/// ignore events sent to it otherwise.
public final class SequencerSongPlayer: @unchecked Sendable {
    /// Events handed to the kernel before its queue starts, so the first ones are not late (the
    /// kernel's output pool for a client holds 200 events; writing more would wait for the queue).
    static let prerollEvents = 200
    /// Song time 0 is this far into the queue's clock. A queue that has not started stands at 0 and
    /// delivers events due at 0 the moment they are written, ahead of the rest; with the lead every
    /// event waits for the queue. It also gives the events written after the queue starts (a burst of
    /// setup messages at time 0 longer than the preroll) time to reach the kernel before they are due.
    public static let leadNanoseconds: UInt64 = 100_000_000

    public let schedule: SequencerSchedule
    private let client: SequencerClient
    private let queue: SequencerQueue
    private let port: SequencerPort
    /// Set by `stop()` from another thread (a signal handler's queue); read by `play()`.
    private let stopRequested = ManagedAtomic(false)

    public init(schedule: SequencerSchedule, client: SequencerClient) throws(SequencerError) {
        self.schedule = schedule
        self.client = client
        queue = try SequencerQueue(client: client, name: "seqplay song")
        port = try client.createPort(name: "song", capabilities: .output)
        for destination in schedule.destinations {
            try client.connect(from: port.address, to: destination)
        }
    }

    /// The address events are sent from.
    public var sourceAddress: PortAddress { port.address }

    /// Plays the schedule to the end, or until `stop()` (then silences every destination).
    /// Returns whether it played to the end. Call it from one thread at a time.
    ///
    /// `queueStarting` runs on this thread just before the kernel queue starts: song time 0 is then
    /// `leadNanoseconds` away, which lets another player (a sampler) start in step with the ports.
    @discardableResult
    public func play(queueStarting: () -> Void = {}) throws(SequencerError) -> Bool {
        var queueStarted = false
        for (index, entry) in schedule.events.enumerated() {
            if stopRequested.load(ordering: .relaxed) { break }
            if index == Self.prerollEvents {
                try startQueue(queueStarting)
                queueStarted = true
            }
            try client.send(entry.message, from: port, to: .port(entry.destination),
                            at: .realTime(nanoseconds: entry.nanoseconds + Self.leadNanoseconds), on: queue)
        }
        if !queueStarted { try startQueue(queueStarting) }
        try client.flush()
        let end = schedule.endNanoseconds + Self.leadNanoseconds
        while !stopRequested.load(ordering: .relaxed), try queue.position().nanoseconds < end {
            usleep(10_000)
        }
        guard !stopRequested.load(ordering: .relaxed) else {
            try silence()
            return false
        }
        return true
    }

    /// Asks `play()` to stop as soon as it can (safe from any thread).
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
    }

    private func startQueue(_ queueStarting: () -> Void) throws(SequencerError) {
        try client.flush()
        queueStarting()
        // Continue, not start: on a queue that never ran it starts from zero and keeps the preroll.
        try queue.resume()
    }

    /// Drops pending events and sends Sustain off and All Notes Off on all 16 channels of every destination.
    private func silence() throws(SequencerError) {
        try client.dropPendingOutput(on: queue)
        for destination in schedule.destinations {
            for channel: UInt8 in 0..<16 {
                try client.send(.controlChange(channel: channel, controller: 64, value: 0), from: port, to: .port(destination))
                try client.send(.controlChange(channel: channel, controller: 123, value: 0), from: port, to: .port(destination))
            }
        }
    }
}
