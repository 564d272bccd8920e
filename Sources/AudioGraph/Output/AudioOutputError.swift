/// Why real-time output could not start or why it ended early.
public enum AudioOutputError: Error, Equatable, CustomStringConvertible {
    /// The sound device failed: no card, cannot open, unsupported setting, disappeared.
    case device(AudioDriverError)
    /// The engine renders a format the output does not play.
    case formatMismatch(engine: AudioFormat, outputSampleRate: Int, outputChannelCount: Int)
    /// The running engine cannot render a whole period in one cycle.
    case periodTooLong(periodFrames: Int, engineMaximumFrameCount: Int)
    /// The engine could not start.
    case engine(AudioEngineError)
    /// `start` was called while the output is playing.
    case alreadyStarted
    /// The render thread could not be created (errno).
    case threadCreationFailed(code: Int32)

    public var description: String {
        switch self {
        case .device(let error):
            return error.description
        case .formatMismatch(let engine, let rate, let channels):
            return "the engine renders \(engine) but the output plays \(rate) Hz, \(channels) ch"
        case .periodTooLong(let period, let maximum):
            return "the output period is \(period) frames but the running engine renders at most \(maximum); "
                + "stop the engine and let the output start it"
        case .engine(let error):
            return "the audio engine could not start: \(error)"
        case .alreadyStarted:
            return "the output is already playing"
        case .threadCreationFailed(let code):
            return "cannot create the render thread (errno \(code))"
        }
    }
}

/// How playback ended.
public enum PlaybackEnd: Equatable, Sendable {
    /// The requested number of frames was played (and drained).
    case completed
    /// `stop` was called.
    case stopped
    /// The device failed; playback stopped there.
    case failed(AudioDriverError)
}

/// The scheduling the render thread got: real-time FIFO when the system allows it, else normal.
public enum RenderThreadScheduling: Equatable, Sendable, CustomStringConvertible {
    /// SCHED_FIFO at this priority.
    case realtime(priority: Int32)
    /// The default time-sharing policy; `reason` says why real-time was refused.
    case normal(reason: String)

    public var description: String {
        switch self {
        case .realtime(let priority): return "render thread: SCHED_FIFO priority \(priority)"
        case .normal(let reason): return "render thread: normal priority (SCHED_FIFO refused: \(reason))"
        }
    }
}
