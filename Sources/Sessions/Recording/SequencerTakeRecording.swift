import ALSA
import Foundation
import MIDIFile
import SeqplaySupport

/// Records what arrives at an ALSA sequencer port into a MIDI file, the way arecordmidi does: the
/// port stamps every event with the real time of this recording's own queue (kernel timestamps, so
/// the timing does not depend on when the program reads), and a `TakeRecorder` turns the stamps into
/// ticks with the pauses cut out. `save()` writes the file through `OutputFile`: a file atomically,
/// a device or FIFO written through, and then only once, at `finish()` (autosaves would send the
/// take again and again).
///
/// Use from one thread: call `record()` in a loop (it reads what arrived, counts the recorded time
/// and autosaves every `autosaveInterval`, so a killed recording loses at most that much) until it
/// says the take is complete or the user stops, pausing and resuming in between; then `finish()`.
public final class SequencerTakeRecording {
    /// The port others connect to (or that `sources` were connected to).
    public let port: SequencerPort
    /// Where `save()` writes.
    public let path: String
    public private(set) var take: TakeRecorder
    /// Seconds between the saves `record()` makes.
    public var autosaveInterval: Double = 1
    /// The take is complete after this many seconds of recording (pauses not counted); nil: no limit.
    public var duration: Double?
    /// Seconds recorded so far, pauses not counted (as `record()` measures them).
    public private(set) var recordedSeconds = 0.0

    private let client: SequencerClient
    private let clock: SequencerQueue
    private var lastStep = Date()
    private var lastSave = Date()

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

    /// One turn of a recording loop: records what arrives within `timeout` milliseconds, counts the
    /// recorded time and saves when `autosaveInterval` has passed. Returns true when `duration` is
    /// reached (the take is complete).
    public func record(timeoutMilliseconds timeout: Int = 20) throws(SequencerRecordingError) -> Bool {
        if let duration, recordedSeconds >= duration { return true }
        do {
            try readEvents(timeoutMilliseconds: timeout)
        } catch {
            throw .sequencer(error)
        }
        let now = Date()
        if !take.isPaused { recordedSeconds += now.timeIntervalSince(lastStep) }
        lastStep = now
        if now.timeIntervalSince(lastSave) >= autosaveInterval {
            try autosave()
            lastSave = now
        }
        return false
    }

    /// Saves the take so far, unless `path` is written through (a device, a FIFO, standard output),
    /// which gets the take once, at `finish()`.
    public func autosave() throws(SequencerRecordingError) {
        if case .file = try? OutputTarget.resolve(path) { try saveNow() }
    }

    /// Records what is still waiting and saves the take.
    public func finish() throws(SequencerRecordingError) {
        do {
            try readEvents(timeoutMilliseconds: 0)
        } catch {
            throw .sequencer(error)
        }
        try saveNow()
    }

    private func saveNow() throws(SequencerRecordingError) {
        do {
            try save()
        } catch {
            throw .cannotSave(error)
        }
    }

    /// Pauses now: notes held end here, and nothing is recorded until `resume()`.
    public func pause() throws(SequencerError) {
        take.pause(at: try clock.position().nanoseconds)
    }

    /// Resumes now; the paused time is cut out of the take.
    public func resume() throws(SequencerError) {
        take.resume(at: try clock.position().nanoseconds)
        lastStep = Date()
    }

    /// Writes the take so far to `path` (a file atomically: a temporary file renamed over it).
    public func save() throws(MIDIFileWriteError) {
        let now = try? clock.position().nanoseconds
        try MIDIFileWriter.write(take.sequence(endingAt: take.isPaused ? nil : now), to: path)
    }
}
