import ALSA
import MIDIFile

/// Records what arrives at an ALSA sequencer port into a MIDI file, the way arecordmidi does: the
/// port stamps every event with the real time of this recording's own queue (kernel timestamps, so
/// the timing does not depend on when the program reads), and a `TakeRecorder` turns the stamps into
/// ticks with the pauses cut out. `save()` writes the file atomically; call it periodically (the
/// `record` command autosaves every second) so a killed recording loses at most that much.
///
/// Use from one thread: `readEvents` from a loop that also handles pause, resume and saving.
public final class SequencerTakeRecording {
    /// The port others connect to (or that `sources` were connected to).
    public let port: SequencerPort
    /// Where `save()` writes.
    public let path: String
    public private(set) var take: TakeRecorder

    private let client: SequencerClient
    private let clock: SequencerQueue

    /// Opens a recording port on `client` stamped by a new queue, connects `sources` to it and starts
    /// the clock.
    public init(client: SequencerClient, sources: [PortAddress], path: String,
                take: TakeRecorder) throws(SequencerError) {
        self.client = client
        self.path = path
        self.take = take
        clock = try SequencerQueue(client: client, name: "seqplay record clock")
        port = try client.createPort(name: "record", capabilities: .input, timestampQueue: clock)
        for source in sources {
            try client.connect(from: source, to: port.address)
        }
        try clock.start()
    }

    /// Records every event that arrives within `timeout` milliseconds (0: only those already there).
    /// Returns how many arrived.
    @discardableResult
    public func readEvents(timeoutMilliseconds timeout: Int) throws(SequencerError) -> Int {
        var count = 0
        var wait = timeout
        while let event = try client.nextEvent(timeoutMilliseconds: wait) {
            if case .realTime(let nanoseconds) = event.timestamp {
                take.record(event.message, at: nanoseconds)
            }
            count += 1
            wait = 0
        }
        return count
    }

    /// Pauses now: notes held end here, and nothing is recorded until `resume()`.
    public func pause() throws(SequencerError) {
        take.pause(at: try clock.position().nanoseconds)
    }

    /// Resumes now; the paused time is cut out of the take.
    public func resume() throws(SequencerError) {
        take.resume(at: try clock.position().nanoseconds)
    }

    /// Writes the take so far to `path` atomically (a temporary file renamed over it).
    public func save() throws(MIDIFileWriteError) {
        let now = try? clock.position().nanoseconds
        try MIDIFileWriter.write(take.sequence(endingAt: take.isPaused ? nil : now), to: path)
    }
}
