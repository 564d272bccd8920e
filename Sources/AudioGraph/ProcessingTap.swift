/// User code run on the render thread at an input or output of a node, with the audio there in
/// hand: it may rewrite the buffer in place (a modify tap) or copy it out (see `ObserveTap`).
///
/// Lifecycle, as MTAudioProcessingTap: the tap is made (init), installed with
/// `AudioNode.installTap(_:at:)`, then `prepare` runs at each engine prepare with the format and the
/// largest frame count it will see, `process` runs once per render cycle, and `unprepare` runs when
/// the engine stops.
public protocol ProcessingTap: AnyObject {
    /// Allocates what `process` needs. Off the render thread. Throw to refuse the format.
    func prepare(format: AudioFormat, maximumFrameCount: Int) throws
    /// Reads or rewrites `buffer` (`frameLength == context.frameCount`) in place. On the render
    /// thread: no allocation, locks, blocking, logging or I/O.
    func process(_ buffer: AudioBuffer, context: RenderContext)
    /// Releases what `prepare` made. Off the render thread.
    func unprepare()
}

extension ProcessingTap {
    public func prepare(format: AudioFormat, maximumFrameCount: Int) throws {}
    public func unprepare() {}
}

/// Where on a node a tap sits.
public enum TapPoint: Hashable, Sendable {
    /// The audio arriving at input `bus`, before the node processes it.
    case input(bus: Int)
    /// The audio leaving output `bus`, after the node processed it.
    case output(bus: Int)
}
