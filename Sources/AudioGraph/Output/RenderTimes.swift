/// How long a `RealtimeOutput`'s renders of its periods took, measured on the render thread around each render
/// (the monotonic clock, and the thread's CPU clock for the work alone): the cost of the output's own work,
/// apart from when the driver woke it. A render longer than its period makes an underrun; when its work alone
/// (the CPU time the render thread spent) was longer than the period, seqplay's rendering made it, else the
/// machine did (the thread was preempted, e.g. by other processes on a host without real-time scheduling).
public struct RenderTimes: Sendable, Equatable {
    /// Periods rendered.
    public var periods: Int
    /// The longest render, in seconds.
    public var longest: Double
    /// The mean render, in seconds.
    public var mean: Double
    /// The longest render's work: the most CPU time a render took, in seconds.
    public var longestWork: Double
    /// Renders that took longer than the period they rendered lasts.
    public var longerThanPeriod: Int
    /// Renders whose work alone (CPU time) took longer than their period: the underruns seqplay's rendering made.
    public var workLongerThanPeriod: Int

    public init(periods: Int = 0, longest: Double = 0, mean: Double = 0, longestWork: Double = 0, longerThanPeriod: Int = 0,
                workLongerThanPeriod: Int = 0) {
        self.periods = periods
        self.longest = longest
        self.mean = mean
        self.longestWork = longestWork
        self.longerThanPeriod = longerThanPeriod
        self.workLongerThanPeriod = workLongerThanPeriod
    }
}
