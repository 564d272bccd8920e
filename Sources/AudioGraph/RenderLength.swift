/// How far a render goes: its content (a song, or a length given), then a tail of at most
/// `maximumFrames - contentFrames` frames that, when `stopsAtSilence`, ends with the first block
/// after the content whose peak is below `AudioBuffer.silenceThreshold`. The one until-silent rule:
/// a song's render (`SongRenderer`) and an engine's render to a file
/// (`AudioEngine.render(to:frameCount:untilSilent:)`) both go by it.
///
/// Each block is at most what `nextBlockFrames(atMost:)` allows: never past the content's end while
/// in the content, never past the maximum. `renderNextBlock(atMost:by:)` renders it and counts it.
/// No allocation: real-time safe.
///
/// ```swift
/// var length = RenderLength(contentFrames: 48_000, tailFrames: 96_000, stopsAtSilence: true)
/// while let block = length.renderNextBlock(atMost: 512, by: { engine.renderBlock(frameCount: $0) }) {
///     print(block.peak)   // one second, then on until a block is silent (two seconds at most)
/// }
/// ```
public struct RenderLength: Hashable, Sendable {
    /// Frames of the content, before the tail.
    public let contentFrames: Int64
    /// The most frames the render produces: the content and the longest tail.
    public let maximumFrames: Int64
    /// Whether the tail ends at the first silent block (else it plays to its full length).
    public let stopsAtSilence: Bool
    /// Frames rendered (and put in) so far.
    public private(set) var renderedFrames: Int64 = 0
    /// True once the content and the tail have been rendered.
    public private(set) var isFinished = false

    /// A render of `contentFrames` frames and a tail of at most `tailFrames` (both at least 0).
    public init(contentFrames: Int64, tailFrames: Int64, stopsAtSilence: Bool) {
        self.contentFrames = max(0, contentFrames)
        maximumFrames = self.contentFrames + max(0, tailFrames)
        self.stopsAtSilence = stopsAtSilence
    }

    /// The frames the next block may have, at most `blockFrames`: up to the content's end while in
    /// the content, then up to the maximum; 0 once finished.
    public func nextBlockFrames(atMost blockFrames: Int) -> Int {
        guard !isFinished else { return 0 }
        let remaining = renderedFrames < contentFrames ? contentFrames - renderedFrames : maximumFrames - renderedFrames
        return Int(min(Int64(blockFrames), max(0, remaining)))
    }

    /// The next block: `render` renders the frames `nextBlockFrames(atMost: blockFrames)` allows, and
    /// the block is counted (`advance(over:)`). Nil, and finished, when none are left or `render` gives none.
    public mutating func renderNextBlock(atMost blockFrames: Int, by render: (Int) -> AudioBuffer?) -> AudioBuffer? {
        let frameCount = nextBlockFrames(atMost: blockFrames)
        guard frameCount > 0, let block = render(frameCount) else {
            isFinished = true
            return nil
        }
        advance(over: block)
        return block
    }

    /// Counts `block` as rendered: the render is finished at the maximum, or with a silent block in
    /// the tail (a block that starts at or after the content's end) when it stops at silence.
    /// Nothing once finished.
    public mutating func advance(over block: AudioBuffer) {
        guard !isFinished else { return }
        let inTail = renderedFrames >= contentFrames
        renderedFrames += Int64(block.frameLength)
        if renderedFrames >= maximumFrames || (inTail && stopsAtSilence && block.peak < AudioBuffer.silenceThreshold) {
            isFinished = true
        }
    }

    /// Counts `frameCount` frames put in that are not rendered sound (silence that keeps the output's
    /// times): they finish the render at the maximum only. Nothing once finished.
    public mutating func advance(insertedFrames frameCount: Int) {
        guard !isFinished else { return }
        renderedFrames += Int64(frameCount)
        if renderedFrames >= maximumFrames { isFinished = true }
    }

    /// Moves the render to frame `frame` (a seek), not finished.
    public mutating func move(toFrame frame: Int64) {
        renderedFrames = frame
        isFinished = false
    }
}
