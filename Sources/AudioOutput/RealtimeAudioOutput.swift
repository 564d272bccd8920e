import AudioGraph

/// What plays an `AudioEngine` in real time, whichever driver runs the render thread: ALSA and
/// `NullOutput` run their own (`RealtimeOutput`), JACK renders in its process callback. Playback
/// code (`SongPlayback`) speaks to this, not to a driver.
///
/// Control it (start, pause, resume, stop, wait) from one thread; read the counters from any thread.
public protocol RealtimeAudioOutput: AnyObject, Sendable {
    /// Frames per second the output plays.
    var sampleRate: Int { get }
    /// Channels the output plays; the engine must render as many.
    var channelCount: Int { get }
    /// Frames rendered per cycle (the largest a driver asks for in one call).
    var periodFrames: Int { get }
    /// Frames of engine audio played since `start` (pauses do not count).
    var sampleTime: Int64 { get }
    /// Underruns since `start`.
    var xrunCount: Int { get }
    /// Whether the output plays silence instead of rendering the engine.
    var isPaused: Bool { get }
    /// The render thread's scheduling, when the output runs its own thread (nil: the driver's).
    var scheduling: RenderThreadScheduling? { get }

    /// Starts rendering `engine` (through `source` when given): `frameCount` frames then end
    /// (`.completed`), or until `stop` when nil. `onEnd` runs once when playback ends by itself.
    func start(engine: AudioEngine, source: (any RealtimeRenderSource)?, frameCount: Int64?,
               onEnd: (@Sendable (PlaybackEnd) -> Void)?) throws(AudioOutputError)
    /// Silence from the next cycle on; the engine is not rendered and time does not advance.
    func pause()
    /// Renders the engine again from the next cycle on.
    func resume()
    /// Stops rendering and returns how playback ended; `draining` plays out what is buffered.
    @discardableResult func stop(draining: Bool) -> PlaybackEnd
    /// Waits for playback to end by itself and returns how.
    @discardableResult func waitUntilEnded() -> PlaybackEnd
}

extension RealtimeAudioOutput {
    /// Starts rendering `engine` until `stop`.
    public func start(engine: AudioEngine, source: (any RealtimeRenderSource)? = nil) throws(AudioOutputError) {
        try start(engine: engine, source: source, frameCount: nil, onEnd: nil)
    }
}

extension RealtimeOutput: RealtimeAudioOutput {}

extension AudioEngine {
    /// Readies the engine for an output playing `sampleRate` Hz, `channelCount` channels, up to
    /// `periodFrames` frames per cycle: a stopped engine is put in manual rendering at that format
    /// with room for a period and started; a running engine must already render that format.
    public func prepareForRealtimeOutput(sampleRate: Int, channelCount: Int, periodFrames: Int) throws(AudioOutputError) {
        let format = AudioFormat(sampleRate: Double(sampleRate), channelCount: channelCount)
        if isRunning {
            guard outputFormat == format else {
                throw .formatMismatch(engine: outputFormat, outputSampleRate: sampleRate, outputChannelCount: channelCount)
            }
            guard maximumFrameCount >= periodFrames else {
                throw .periodTooLong(periodFrames: periodFrames, engineMaximumFrameCount: maximumFrameCount)
            }
            return
        }
        do {
            try enableManualRenderingMode(format: format, maximumFrameCount: max(maximumFrameCount, periodFrames))
            try start()
        } catch {
            throw .engine(error)
        }
    }
}
