extension SequenceReport {
    /// A tempo in effect from a place in the song on.
    public struct Tempo: Codable, Equatable, Sendable {
        public var tick: Int64
        public var position: String
        public var seconds: Double
        /// Quarter notes per minute; nil for a tempo of 0 µs (which takes no time).
        public var bpm: Double?
        public var microsecondsPerQuarter: Int

        init(placed: Placed, microsecondsPerQuarter: Int) {
            tick = placed.tick
            position = placed.position
            seconds = placed.seconds
            bpm = microsecondsPerQuarter > 0 ? 60_000_000 / Double(microsecondsPerQuarter) : nil
            self.microsecondsPerQuarter = microsecondsPerQuarter
        }
    }
}
