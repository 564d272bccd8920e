import ALSA
import MIDICore
import Player
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// ALSA sequencer ports as the destination of a song (a `SongDestination`): the events a
/// `MusicPlayer` (in nanoseconds) hands out go ahead of time onto a kernel queue, stamped with their
/// exact time, so the kernel delivers each on time. `play()` takes them from the player a window of
/// song time at a time (`windowNanoseconds`), each window's events in one delivery. Stopping early
/// drops what is still pending and sends Sustain Off and All Notes Off on every channel of every
/// destination.
///
/// Routing follows aplaymidi: an event goes to `ports[event.port % ports.count]` (a track starts on
/// the first port; an SMF port meta event moves it), unless `trackPorts` names its track's port; MIDI
/// clock goes to every destination. Like aplaymidi, the player connects its port to every destination
/// before playing: kernel drivers (hardware MIDI ports, snd-virmidi) only open their device for a port
/// that has a subscriber, and ignore events sent to it otherwise.
// Why unchecked: the state of `play()` is its thread's; `stop()` (any thread) only makes the stop request.
public final class SequencerSongPlayer: SongDestination, @unchecked Sendable {
    /// Events handed to the kernel before its queue starts, so the first ones are not late (the
    /// kernel's output pool for a client holds 200 events; writing more would wait for the queue).
    static let prerollEvents = 200
    /// Song time 0 is this far into the queue's clock. A queue that has not started stands at 0 and
    /// delivers events due at 0 the moment they are written, ahead of the rest; with the lead every
    /// event waits for the queue. It also gives the events written after the queue starts (a burst of
    /// setup messages at time 0 longer than the preroll) time to reach the kernel before they are due.
    public static let leadNanoseconds: UInt64 = 100_000_000

    /// The song, in nanoseconds (`MusicPlayer.nanosecondRate`).
    public let player: MusicPlayer
    /// Every port the player sends to, in address order.
    public let destinations: [PortAddress]
    private let ports: [PortAddress]
    private let trackPorts: [Int: PortAddress]
    private let client: SequencerClient
    private let queue: SequencerQueue
    private let port: SequencerPort
    /// Whether every event goes to the port's subscribers rather than to its destination alone.
    private let sendsToSubscribers: Bool
    /// Set by `stop()` from another thread (a signal handler's queue); read by `play()`.
    private let stopRequest = StopRequest()
    // The state of `play()`, which the events it pulls from the player (`receive`) update.
    private var sent = 0
    private var queueStarted = false
    private var failure: SequencerError?
    private var queueStarting: () -> Void = {}

    /// Plays `player` to `ports` (SMF port meta events choose among them) and `trackPorts` (a track's
    /// own port, whatever its port meta events say). With `sendsToSubscribers` (one destination in
    /// all), every event goes to whoever is subscribed to the player's port, so other programs
    /// (aseqdump, a recorder) can tap the stream.
    public init(player: MusicPlayer, ports: [PortAddress], trackPorts: [Int: PortAddress] = [:], client: SequencerClient,
                sendsToSubscribers: Bool = false) throws(SequencerError) {
        precondition(player.sampleRate == MusicPlayer.nanosecondRate, "a sequencer player's times are nanoseconds")
        precondition(!ports.isEmpty || !trackPorts.isEmpty, "a sequencer player needs a port")
        self.player = player
        self.ports = ports
        self.trackPorts = trackPorts
        destinations = Set(ports + trackPorts.values).sorted()
        precondition(!sendsToSubscribers || destinations.count == 1, "only one destination can go to subscribers")
        self.client = client
        self.sendsToSubscribers = sendsToSubscribers
        queue = try SequencerQueue(client: client, name: "seqplay song")
        port = try client.createPort(name: "song", capabilities: .output)
        for destination in destinations {
            try client.connect(from: port.address, to: destination)
        }
    }

    /// The address events are sent from.
    public var sourceAddress: PortAddress { port.address }

    /// Where `event` goes: its track's port, else its SMF port among `ports`; clock to every destination.
    public func destinations(of event: SongEvent) -> ArraySlice<PortAddress> {
        if event.isClock { return destinations[...] }
        if let own = trackPorts[event.track] { return [own] }
        return ports.isEmpty ? [] : [ports[Int(event.port) % ports.count]]
    }

    /// Plays the song to the end, or until `stop()` (then silences every destination). Returns
    /// whether it played to the end. Call it from one thread at a time.
    ///
    /// `queueStarting` runs on this thread just before the kernel queue starts: song time 0 is then
    /// `leadNanoseconds` away, which lets other destinations (a sampler, the network) start in step.
    @discardableResult
    public func play(queueStarting: () -> Void = {}) throws(SequencerError) -> Bool {
        sent = 0
        queueStarted = false
        failure = nil
        withoutActuallyEscaping(queueStarting) { queueStarting in
            self.queueStarting = queueStarting
            // The song in windows of song time from the next event on, each taken in one delivery with
            // the events' times; a stop is seen between them.
            while failure == nil, !stopRequest.isRequested, let next = player.nextEventSampleTime {
                player.deliverEvents(before: next + Self.windowNanoseconds, to: self)
            }
            if failure == nil && !queueStarted {
                do throws(SequencerError) {
                    try startQueue(queueStarting)
                } catch {
                    failure = error
                }
            }
            self.queueStarting = {}
        }
        if let failure { throw failure }
        try client.flush()
        // The kernel sends a queue's events in the timer interrupt that moves its clock past them, so the
        // clock read at `end` may not have sent the events stamped `end` yet (the note-offs of the notes held
        // at the song's end); the queue goes with the client. Waiting a margin past the end lets them leave.
        let end = UInt64(player.durationInSamples) + Self.leadNanoseconds + Self.deliveryMarginNanoseconds
        // The queue's clock runs with the monotonic clock: wait for the time it still needs (a stop ends
        // the wait), then look again in case the kernel's timer lags.
        while !stopRequest.isRequested {
            let position = try queue.position().nanoseconds
            guard position < end else { break }
            stopRequest.wait(nanoseconds: end - position)
        }
        guard !stopRequest.isRequested else {
            try silence()
            return false
        }
        return true
    }

    /// The song time whose events `play()` takes from the player in one delivery.
    static let windowNanoseconds: Int64 = 20_000_000

    /// How long past the song's last event `play()` keeps the queue, so that its last events are sent.
    static let deliveryMarginNanoseconds: UInt64 = 20_000_000

    /// Writes `event` onto the queue for each of its destinations, at its time (the player pulled by
    /// `play()`); the first `prerollEvents` before the queue starts. Nothing once a stop is asked for.
    public func receive(_ event: SongEvent) {
        for destination in destinations(of: event) where failure == nil && !stopRequest.isRequested {
            do throws(SequencerError) {
                if sent == Self.prerollEvents && !queueStarted {
                    try startQueue(queueStarting)
                    queueStarted = true
                }
                try client.send(event.message, from: port, to: sendsToSubscribers ? .subscribers : .port(destination),
                                at: .realTime(nanoseconds: UInt64(event.sampleTime) + Self.leadNanoseconds), on: queue)
                sent += 1
            } catch {
                failure = error
            }
        }
    }

    /// Asks `play()` to stop as soon as it can (safe from any thread).
    public func stop() {
        stopRequest.request()
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
        let targets: [SequencerDestination] = sendsToSubscribers ? [.subscribers] : destinations.map { .port($0) }
        for target in targets {
            for channel: UInt8 in 0..<16 {
                try client.send(.controlChange(channel: channel, controller: 64, value: 0), from: port, to: target)
                try client.send(.controlChange(channel: channel, controller: 123, value: 0), from: port, to: target)
            }
        }
    }
}
