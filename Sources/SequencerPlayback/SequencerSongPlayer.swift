import ALSA
import MIDICore
#if canImport(Glibc)
import Glibc
#endif

/// Plays a `SequencerSchedule` to ALSA sequencer ports: the events go out ahead of time on a kernel
/// queue with real-time timestamps, so the kernel delivers each at its exact time. Stopping early drops
/// what is still pending and sends Sustain Off and All Notes Off on every channel of every destination.
public final class SequencerSongPlayer: @unchecked Sendable {
    /// Events handed to the kernel before its queue starts, so the first ones are not late.
    static let prerollEvents = 200

    public let schedule: SequencerSchedule
    private let client: SequencerClient
    private let queue: SequencerQueue
    private let port: SequencerPort
    /// Set by `stop()` from another thread (a signal handler's queue); read by `play()`.
    private let stopRequested = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)

    public init(schedule: SequencerSchedule, client: SequencerClient) throws(SequencerError) {
        self.schedule = schedule
        self.client = client
        queue = try SequencerQueue(client: client, name: "seqplay song")
        port = try client.createPort(name: "song", capabilities: .output)
        stopRequested.initialize(to: 0)
    }

    deinit {
        stopRequested.deallocate()
    }

    /// The address events are sent from.
    public var sourceAddress: PortAddress { port.address }

    /// Plays the schedule to the end, or until `stop()` (then silences every destination).
    /// Returns whether it played to the end.
    @discardableResult
    public func play() throws(SequencerError) -> Bool {
        for (index, entry) in schedule.entries.enumerated() {
            if stopRequested.pointee != 0 { break }
            if index == Self.prerollEvents { try startQueue() }
            try client.send(entry.message, from: port, to: .port(entry.destination),
                            at: .realTime(nanoseconds: entry.nanoseconds), on: queue)
        }
        try startQueue()
        while stopRequested.pointee == 0, try queue.position().nanoseconds < schedule.endNanoseconds {
            usleep(10_000)
        }
        guard stopRequested.pointee == 0 else {
            try silence()
            return false
        }
        return true
    }

    /// Asks `play()` to stop as soon as it can (safe from any thread).
    public func stop() {
        stopRequested.pointee = 1
    }

    private var queueStarted = false

    private func startQueue() throws(SequencerError) {
        guard !queueStarted else { return }
        try client.flush()
        try queue.start()
        queueStarted = true
    }

    /// Drops pending events and sends Sustain off and All Notes Off on all 16 channels of every destination.
    private func silence() throws(SequencerError) {
        try client.dropPendingOutput(on: queue)
        for destination in Set(schedule.entries.map(\.destination)).sorted() {
            for channel: UInt8 in 0..<16 {
                try client.send(.controlChange(channel: channel, controller: 64, value: 0), from: port, to: .port(destination))
                try client.send(.controlChange(channel: channel, controller: 123, value: 0), from: port, to: .port(destination))
            }
        }
    }
}
