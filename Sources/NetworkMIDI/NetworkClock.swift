/// The 10 kHz (100 µs) ticks that AppleMIDI uses for RTP and clock-sync timestamps, counted on
/// `MonotonicClock`.
public enum NetworkClock {
    /// Nanoseconds per RTP / clock-sync tick.
    public static let nanosecondsPerTick: UInt64 = 100_000
}
