/// What a node learns about the render cycle it is rendering: where it is on the sample grid and how
/// many frames to produce.
public struct RenderContext: Sendable {
    /// Sample time of the first frame of this cycle: frames rendered since the engine started
    /// (reset by `AudioEngine.reset()`). A sampler schedules MIDI events against this grid.
    public let sampleTime: Int64
    /// Frames to render this cycle, 1...maximumFrameCount. Every input and output buffer has
    /// `frameLength == frameCount`.
    public let frameCount: Int

    public init(sampleTime: Int64, frameCount: Int) {
        self.sampleTime = sampleTime
        self.frameCount = frameCount
    }
}
