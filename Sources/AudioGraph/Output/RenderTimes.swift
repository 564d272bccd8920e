/// How long a `RealtimeOutput`'s renders of its periods took, measured on the render thread (the monotonic
/// clock read before and after each render): the cost of the output's own work, apart from when the driver
/// woke it. A render longer than its period makes an underrun by itself, whatever the scheduling; an
/// underrun with no such render came from the machine (a late wake-up, another process).
public struct RenderTimes: Sendable, Equatable {
    /// Periods rendered.
    public var periods: Int
    /// The longest render, in seconds.
    public var longest: Double
    /// The mean render, in seconds.
    public var mean: Double
    /// Renders that took longer than the period they rendered lasts.
    public var longerThanPeriod: Int

    public init(periods: Int = 0, longest: Double = 0, mean: Double = 0, longerThanPeriod: Int = 0) {
        self.periods = periods
        self.longest = longest
        self.mean = mean
        self.longerThanPeriod = longerThanPeriod
    }
}
