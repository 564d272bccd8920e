import CALSA

/// A sequencer queue: a clock in the kernel that delivers scheduled events on time, in ticks (at a
/// tempo and resolution) and in real time (nanoseconds since it started). Also what timestamping
/// ports stamp arriving events with. Freed with the object.
public final class SequencerQueue {
    /// The queue's number, shared by every client that uses it.
    public let id: UInt8
    private let client: SequencerClient

    /// Allocates a queue owned by `client`. It starts stopped, at 120 BPM and 96 ticks per quarter.
    public init(client: SequencerClient, name: String) throws(SequencerError) {
        let result = try checkSequencerCall(snd_seq_alloc_named_queue(client.handle, name), "snd_seq_alloc_named_queue")
        id = UInt8(truncatingIfNeeded: result)
        self.client = client
    }

    deinit {
        snd_seq_free_queue(client.handle, Int32(id))
    }

    /// Sets the tick clock: `ticksPerQuarter` ticks per quarter note, one quarter note every
    /// `microsecondsPerQuarter` µs. Real-time scheduling does not depend on it.
    public func setTempo(microsecondsPerQuarter: UInt32, ticksPerQuarter: Int) throws(SequencerError) {
        var tempo: OpaquePointer?
        try checkSequencerCall(snd_seq_queue_tempo_malloc(&tempo), "snd_seq_queue_tempo_malloc")
        defer { snd_seq_queue_tempo_free(tempo) }
        snd_seq_queue_tempo_set_tempo(tempo, microsecondsPerQuarter)
        snd_seq_queue_tempo_set_ppq(tempo, Int32(ticksPerQuarter))
        try checkSequencerCall(snd_seq_set_queue_tempo(client.handle, Int32(id), tempo), "snd_seq_set_queue_tempo")
    }

    /// Starts the clock from zero. The kernel drops the events this client already scheduled on the
    /// queue; to schedule ahead and then start, use `resume()` on a queue that never ran.
    public func start() throws(SequencerError) {
        try control(SND_SEQ_EVENT_START, "start")
    }

    /// Stops the clock; scheduled events wait.
    public func stop() throws(SequencerError) {
        try control(SND_SEQ_EVENT_STOP, "stop")
    }

    /// Runs the clock on from where it stopped (from zero, keeping scheduled events, on a new queue).
    public func resume() throws(SequencerError) {
        try control(SND_SEQ_EVENT_CONTINUE, "continue")
    }

    /// The queue's clock now: ticks and nanoseconds since it started.
    public func position() throws(SequencerError) -> (tick: UInt32, nanoseconds: UInt64) {
        var status: OpaquePointer?
        try checkSequencerCall(snd_seq_queue_status_malloc(&status), "snd_seq_queue_status_malloc")
        defer { snd_seq_queue_status_free(status) }
        try checkSequencerCall(snd_seq_get_queue_status(client.handle, Int32(id), status), "snd_seq_get_queue_status")
        let time = snd_seq_queue_status_get_real_time(status)!.pointee
        return (snd_seq_queue_status_get_tick_time(status),
                UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    private func control(_ type: snd_seq_event_type, _ what: String) throws(SequencerError) {
        try checkSequencerCall(snd_seq_control_queue(client.handle, Int32(id), Int32(type.rawValue), 0, nil),
                               "queue \(what)")
        try client.flush()
    }
}
