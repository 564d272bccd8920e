/// The 10 kHz (100 µs) ticks that AppleMIDI uses for RTP and clock-sync timestamps, counted on
/// `MonotonicClock`.
package enum NetworkClock {
    /// Nanoseconds per RTP / clock-sync tick.
    package static let nanosecondsPerTick: UInt64 = 100_000
}
