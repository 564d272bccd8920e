import ALSA
import Atomics
import AudioGraph
import RealtimeSupport
#if canImport(Glibc)
import Glibc
#endif

/// Plays an `AudioEngine` in real time. A dedicated render thread pulls one period at a time from
/// the engine (`renderBlock`), or from a `RealtimeRenderSource` standing in front of it, and hands it to the output: `ALSAOutput` writes it to a sound device,
/// `NullOutput` paces it by a clock. The common part of both; not made directly.
///
/// Control it (start, pause, resume, stop, wait) from one thread; read `sampleTime`, `xrunCount` and
/// `isPaused` from any thread. The render loop neither allocates, locks, logs nor does I/O other than
/// the device write.
public class RealtimeOutput: @unchecked Sendable {
    let sink: any PeriodSink
    private let shared = RenderLoopState()
    private var thread: pthread_t?
    private var loop: RenderLoop?

    /// Scheduling the render thread obtained at the last `start` (nil before the first start).
    public private(set) var scheduling: RenderThreadScheduling?

    init(sink: any PeriodSink) {
        self.sink = sink
    }

    deinit {
        if thread != nil { stop() }
    }

    /// Frames per second the output plays.
    public var sampleRate: Int { sink.sampleRate }
    /// Channels the output plays; the engine must render as many.
    public var channelCount: Int { sink.channelCount }
    /// Frames rendered and delivered per cycle.
    public var periodFrames: Int { sink.periodFrames }
    /// Frames between writing a sample and hearing it (the device buffer; 0 for a clock). Other
    /// destinations of a song start this much later than the output to be heard in step with it.
    public var latencyFrames: Int { 0 }
    /// Frames of engine audio played since `start` (pauses do not count).
    public var sampleTime: Int64 { shared.framesPlayed.load(ordering: .relaxed) }
    /// Underruns detected and recovered since `start`.
    public var xrunCount: Int { shared.xruns.load(ordering: .relaxed) }
    /// Whether the output plays silence instead of rendering the engine.
    public var isPaused: Bool { shared.paused.load(ordering: .relaxed) }

    /// Starts the render thread playing `engine`: `frameCount` frames then drain and end (`.completed`),
    /// or until `stop` when nil. A stopped engine is put in manual rendering at the output's format
    /// with room for a period and started; a running engine must already render that format.
    /// `onEnd` runs once on the render thread after it has left real-time scheduling.
    /// Each period is pulled from `source` when given (something that renders `engine` its own way,
    /// e.g. through a varispeed or with commands to pick up between blocks), else from `engine`.
    public func start(engine: AudioEngine, source: (any RealtimeRenderSource)? = nil, frameCount: Int64? = nil,
                      onEnd: (@Sendable (PlaybackEnd) -> Void)? = nil) throws(AudioOutputError) {
        guard thread == nil else { throw .alreadyStarted }
        try prepare(engine)
        shared.reset()
        let loop = RenderLoop(source: source ?? engine, sink: sink, shared: shared, frameLimit: frameCount, onEnd: onEnd)
        let (thread, scheduling) = try RenderThread.start { loop.run() }
        self.loop = loop
        self.thread = thread
        self.scheduling = scheduling
    }

    /// Plays silence from the next period on; the engine is not rendered and time does not advance.
    public func pause() { shared.paused.store(true, ordering: .relaxed) }

    /// Renders the engine again from the next period on.
    public func resume() { shared.paused.store(false, ordering: .relaxed) }

    /// Stops the render thread after the period in progress and waits for it: what is buffered is
    /// played to the end when `draining`, else dropped. Returns how playback ended (`.stopped`, or
    /// what ended it before). Returns at once when not started.
    @discardableResult
    public func stop(draining: Bool = false) -> PlaybackEnd {
        shared.drainOnStop.store(draining, ordering: .relaxed)
        shared.stopRequested.store(true, ordering: .releasing)
        return waitUntilEnded()
    }

    /// Waits for playback to end by itself (frame count reached, device failed) and returns how.
    @discardableResult
    public func waitUntilEnded() -> PlaybackEnd {
        guard let thread, let loop else { return .stopped }
        pthread_join(thread, nil)
        self.thread = nil
        self.loop = nil
        return loop.end ?? .stopped
    }

    private func prepare(_ engine: AudioEngine) throws(AudioOutputError) {
        let format = AudioFormat(sampleRate: Double(sampleRate), channelCount: channelCount)
        if engine.isRunning {
            guard engine.outputFormat == format else {
                throw .formatMismatch(engine: engine.outputFormat, outputSampleRate: sampleRate,
                                      outputChannelCount: channelCount)
            }
            guard engine.maximumFrameCount >= periodFrames else {
                throw .periodTooLong(periodFrames: periodFrames, engineMaximumFrameCount: engine.maximumFrameCount)
            }
            return
        }
        do {
            try engine.enableManualRenderingMode(format: format,
                                                 maximumFrameCount: max(engine.maximumFrameCount, periodFrames))
            try engine.start()
        } catch {
            throw .engine(error)
        }
    }
}

/// The flags and counters the control thread and the render thread share.
final class RenderLoopState: Sendable {
    let stopRequested = ManagedAtomic(false)
    let drainOnStop = ManagedAtomic(false)
    let paused = ManagedAtomic(false)
    let framesPlayed = ManagedAtomic<Int64>(0)
    let xruns = ManagedAtomic(0)

    func reset() {
        stopRequested.store(false, ordering: .relaxed)
        drainOnStop.store(false, ordering: .relaxed)
        framesPlayed.store(0, ordering: .relaxed)
        xruns.store(0, ordering: .relaxed)
    }
}

/// What the render thread pulls each period from: `renderBlock(frameCount:)` returns that many
/// frames in the output's format (valid until the next call), or nil for silence. Called on the
/// render thread only: must not allocate, lock, log or do I/O.
public protocol RealtimeRenderSource: AnyObject {
    func renderBlock(frameCount: Int) -> AudioBuffer?
}

extension AudioEngine: RealtimeRenderSource {}

/// The body of the render thread: render a period, deliver it, repeat until stopped, done or failed.
final class RenderLoop: @unchecked Sendable {
    private let source: any RealtimeRenderSource
    private let sink: any PeriodSink
    private let shared: RenderLoopState
    private let frameLimit: Int64?
    private let onEnd: (@Sendable (PlaybackEnd) -> Void)?
    /// How playback ended; written by the render thread before it exits, read after joining it.
    private(set) var end: PlaybackEnd?

    init(source: any RealtimeRenderSource, sink: any PeriodSink, shared: RenderLoopState, frameLimit: Int64?,
         onEnd: (@Sendable (PlaybackEnd) -> Void)?) {
        self.source = source
        self.sink = sink
        self.shared = shared
        self.frameLimit = frameLimit
        self.onEnd = onEnd
    }

    func run() {
        let failure = renderUntilDone()
        RealtimeScheduling.leaveRealtimeClass()
        let end: PlaybackEnd
        if let failure {
            _ = sink.finish(draining: false)
            end = .failed(sink.error(for: failure))
        } else {
            let completed = !shared.stopRequested.load(ordering: .acquiring)
            let draining = completed || shared.drainOnStop.load(ordering: .relaxed)
            if let error = sink.finish(draining: draining) {
                end = .failed(error)
            } else {
                end = completed ? .completed : .stopped
            }
        }
        self.end = end
        onEnd?(end)
    }

    /// The real-time part: no allocation, locks, logging or I/O besides `sink.deliver`.
    private func renderUntilDone() -> PCMWriteFailure? {
        sink.begin()
        let period = sink.periodFrames
        var played: Int64 = 0
        while !shared.stopRequested.load(ordering: .acquiring) {
            var frames = period
            if let frameLimit {
                if played >= frameLimit { return nil }
                frames = Int(min(Int64(period), frameLimit - played))
            }
            let block = shared.paused.load(ordering: .relaxed) ? nil : source.renderBlock(frameCount: frames)
            do {
                try sink.deliver(block, frameCount: frames)
            } catch {
                return error
            }
            if block != nil {
                played += Int64(frames)
                shared.framesPlayed.store(played, ordering: .relaxed)
            }
            shared.xruns.store(sink.xrunCount, ordering: .relaxed)
        }
        return nil
    }
}
