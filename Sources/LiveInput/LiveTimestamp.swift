/// When a message a producer pushes should sound.
package enum LiveTimestamp: Hashable, Sendable {
    /// At the next block rendered (and so also in `.immediate` delivery).
    case immediate
    /// At this monotonic time (CLOCK_MONOTONIC ns, `MonotonicClock.now()`): network sessions, whose
    /// RTP timestamps the session has already mapped through its clock sync.
    case monotonic(UInt64)
    /// At this reading of the producer's own clock (kernel queue nanoseconds, JACK frames: a cycle's
    /// first frame plus the event's frame offset), which `LiveInputProducer.calibrate` relates to
    /// the monotonic clock. Sounds at once until the producer has been calibrated.
    case producerClock(Int64)
    /// At this sample of the output's own clock (`RealtimeOutput.sampleTime`: frames rendered since
    /// it started), for producers read in the very cycle the output renders (a JACK MIDI port: the
    /// cycle's first output sample plus the event's frame offset). No clock fit is involved: the
    /// event shares the audio's sample clock, so it is placed exactly (plus the delivery's look-ahead).
    case outputSampleTime(Int64)
}

/// How a producer's live input is placed in the audio a destination renders.
package enum LiveDelivery: Hashable, Sendable {
    /// At the next 64-frame block rendered: the lowest latency; the onset moves with the render
    /// thread's period (up to a period of jitter).
    case immediate
    /// At the event's timestamp plus a fixed look-ahead, placed in the right 64-sample block: onsets
    /// keep the timing they were played with (jitter ≤ 64 samples), `lookAheadFrames` later. The
    /// look-ahead must exceed a period plus the producer thread's wake-up time, or events come late
    /// (counted in `LiveMIDIInput.lateEventCount`, played at the next block).
    case timestamped(lookAheadFrames: Int)
}
