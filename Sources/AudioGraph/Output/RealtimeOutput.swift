import Atomics
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// Plays an `AudioEngine` in real time through an `AudioDriver`. Each period is pulled from the engine
/// (`renderBlock`), or from a `RealtimeRenderSource` standing in front of it, and handed to the driver:
/// for a `BlockingAudioDriver` (ALSA's `ALSAOutput`, the clock of `NullOutput`) a dedicated render
/// thread writes it; a `CallbackAudioDriver` (JACK) asks for it from its own real-time thread.
///
/// Control it (start, pause, resume, stop, wait) from one thread; read `sampleTime`, `xrunCount` and
/// `isPaused` from any thread. The render loop neither allocates, locks, logs nor does I/O other than
/// the device write.
// Why unchecked: controlled from one thread; what any thread reads (sample time, xruns, paused) is atomic; the loop's state is the render thread's.
open class RealtimeOutput: @unchecked Sendable {
    /// The device this output plays to.
    public let driver: any AudioDriver
    private let shared = RenderLoopState()
    /// The render thread (blocking drivers) or the thread that stops a callback driver when it ends.
    private var thread: pthread_t?
    private var loop: RenderLoop?

    /// Scheduling the render thread obtained at the last `start` (nil before the first start).
    public private(set) var scheduling: RenderThreadScheduling?

    /// An output playing to `driver` (a `BlockingAudioDriver` or a `CallbackAudioDriver`).
    public init(driver: any AudioDriver) {
        precondition(driver is any BlockingAudioDriver || driver is any CallbackAudioDriver,
                     "an audio driver is a BlockingAudioDriver or a CallbackAudioDriver")
        self.driver = driver
    }

    deinit {
        if thread != nil { stop() }
    }

    /// Frames per second the output plays.
    public var sampleRate: Int { driver.sampleRate }
    /// Channels the output plays; the engine must render as many.
    public var channelCount: Int { driver.channelCount }
    /// Frames rendered and delivered per cycle.
    public var periodFrames: Int { driver.periodFrames }
    /// How long a frame rendered now takes to be heard (the device buffer), in seconds.
    public var outputLatency: Double { Double(driver.outputLatencyFrames) / Double(driver.sampleRate) }
    /// Frames of engine audio played since `start` (pauses do not count).
    public var sampleTime: Int64 { shared.framesPlayed.load(ordering: .relaxed) }
    /// Underruns detected and recovered since `start`.
    public var xrunCount: Int { shared.xruns.load(ordering: .relaxed) }
    /// How long the renders of the periods played since `start` took, against the periods' length.
    public var renderTimes: RenderTimes { shared.renderTimes }
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
        let loop = RenderLoop(source: source ?? engine, driver: driver, shared: shared, frameLimit: frameCount, onEnd: onEnd)
        if let blocking = driver as? any BlockingAudioDriver {
            let (thread, scheduling) = try RenderThread.start { loop.run(blocking) }
            self.thread = thread
            self.scheduling = scheduling
        } else if let callback = driver as? any CallbackAudioDriver {
            do {
                try callback.start(AudioDriverCycle(loop: loop))
            } catch {
                throw .device(error)
            }
            (thread, _) = try RenderThread.start { loop.waitAndStop(callback) }
            scheduling = nil
        }
        self.loop = loop
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
        loop?.signalEnd()
        return waitUntilEnded()
    }

    /// Stops once the engine has played `frame` frames (at once when it has, or when paused), rendering
    /// on at the output's pace until then, and waits for it; what is buffered is dropped, as `stop()`
    /// does. For a recording that must hold everything due before the stop even when the render lags
    /// the clock (a loaded machine; `NullOutput` behind the wall clock catches up as fast as it renders).
    @discardableResult
    public func stop(afterFrame frame: Int64) -> PlaybackEnd {
        guard !isPaused, frame > sampleTime else { return stop() }
        shared.stopAtFrame.store(frame, ordering: .releasing)
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
    /// `stop(afterFrame:)`'s frame: the loop stops (as `stop()` does) once it has played this many.
    let stopAtFrame = ManagedAtomic<Int64>(.max)
    /// The renders' times (`RenderTimes`), written by the render thread alone.
    let renderedPeriods = ManagedAtomic(0)
    let longestRender = ManagedAtomic<UInt64>(0)
    let totalRender = ManagedAtomic<UInt64>(0)
    let longestWork = ManagedAtomic<UInt64>(0)
    let rendersLongerThanPeriod = ManagedAtomic(0)
    let workLongerThanPeriod = ManagedAtomic(0)

    /// The render thread's measurement of one render of a period `period` nanoseconds long: `wall` nanoseconds
    /// by the monotonic clock, `work` of them on the CPU.
    func recordRender(wall: UInt64, work: UInt64, period: UInt64) {
        renderedPeriods.wrappingIncrement(ordering: .relaxed)
        totalRender.wrappingIncrement(by: wall, ordering: .relaxed)
        if wall > longestRender.load(ordering: .relaxed) { longestRender.store(wall, ordering: .relaxed) }
        if work > longestWork.load(ordering: .relaxed) { longestWork.store(work, ordering: .relaxed) }
        if wall > period { rendersLongerThanPeriod.wrappingIncrement(ordering: .relaxed) }
        if work > period { workLongerThanPeriod.wrappingIncrement(ordering: .relaxed) }
    }

    var renderTimes: RenderTimes {
        let periods = renderedPeriods.load(ordering: .relaxed)
        return RenderTimes(periods: periods, longest: Double(longestRender.load(ordering: .relaxed)) / 1e9,
                           mean: periods == 0 ? 0 : Double(totalRender.load(ordering: .relaxed)) / 1e9 / Double(periods),
                           longestWork: Double(longestWork.load(ordering: .relaxed)) / 1e9,
                           longerThanPeriod: rendersLongerThanPeriod.load(ordering: .relaxed),
                           workLongerThanPeriod: workLongerThanPeriod.load(ordering: .relaxed))
    }

    func reset() {
        stopRequested.store(false, ordering: .relaxed)
        stopAtFrame.store(.max, ordering: .relaxed)
        drainOnStop.store(false, ordering: .relaxed)
        framesPlayed.store(0, ordering: .relaxed)
        xruns.store(0, ordering: .relaxed)
        renderedPeriods.store(0, ordering: .relaxed)
        longestRender.store(0, ordering: .relaxed)
        totalRender.store(0, ordering: .relaxed)
        longestWork.store(0, ordering: .relaxed)
        rendersLongerThanPeriod.store(0, ordering: .relaxed)
        workLongerThanPeriod.store(0, ordering: .relaxed)
    }
}

/// What the render thread pulls each period from: `renderBlock(frameCount:)` returns that many
/// frames in the output's format (valid until the next call), or nil for silence. Called on the
/// render thread only: must not allocate, lock, log or do I/O.
public protocol RealtimeRenderSource: AnyObject {
    func renderBlock(frameCount: Int) -> AudioBuffer?
}

extension AudioEngine: RealtimeRenderSource {}

/// The render loop: a period rendered per cycle, until stopped, done or failed. A blocking driver's
/// render thread runs `run`; a callback driver's thread calls `cycle` and a helper thread waits in
/// `waitAndStop` for the end.
// Why unchecked: controlled from one thread; what any thread reads (sample time, xruns, paused) is atomic; the loop's state is the render thread's.
final class RenderLoop: @unchecked Sendable {
    private let source: any RealtimeRenderSource
    private let driver: any AudioDriver
    private let shared: RenderLoopState
    private let frameLimit: Int64?
    private let onEnd: (@Sendable (PlaybackEnd) -> Void)?
    /// A frame's duration at the driver's rate, in nanoseconds: a period's length, for `RenderTimes`.
    private let frameNanoseconds: Double
    /// How playback ended; written by the thread that ends it, read after joining that thread.
    private(set) var end: PlaybackEnd?
    private var played: Int64 = 0
    /// Frames rendered so far (the render thread's own count).
    var playedFrames: Int64 { played }
    /// Set once the loop has ended (limit reached, failure, stop): a callback driver gets silence.
    private let ended = ManagedAtomic(false)
    private let failure = ManagedAtomic<Int64>(RenderLoop.noFailure)
    /// Posted once when a callback driver's loop ends, so `waitAndStop` stops the driver.
    private let endSignal = PostedSemaphore()
    private static let noFailure = Int64.min

    init(source: any RealtimeRenderSource, driver: any AudioDriver, shared: RenderLoopState, frameLimit: Int64?,
         onEnd: (@Sendable (PlaybackEnd) -> Void)?) {
        self.source = source
        self.driver = driver
        self.shared = shared
        self.frameLimit = frameLimit
        self.onEnd = onEnd
        frameNanoseconds = 1e9 / Double(max(driver.sampleRate, 1))
    }


    /// One cycle of at most `frameCount` frames: the block to play, or nil for silence (paused, or
    /// ended). Real-time: no allocation, lock, logging or I/O.
    func cycle(frameCount: Int) -> AudioBuffer? {
        if ended.load(ordering: .relaxed) { return nil }
        if played >= shared.stopAtFrame.load(ordering: .acquiring) { shared.stopRequested.store(true, ordering: .releasing) }
        if shared.stopRequested.load(ordering: .acquiring) {
            signalEnd()
            return nil
        }
        var frames = frameCount
        if let frameLimit {
            if played >= frameLimit {
                signalEnd()
                return nil
            }
            frames = Int(min(Int64(frameCount), frameLimit - played))
        }
        let began = MonotonicClock.now(), workBegan = Self.threadCPUTime()
        let block = shared.paused.load(ordering: .relaxed) ? nil : source.renderBlock(frameCount: frames)
        if block != nil {
            shared.recordRender(wall: MonotonicClock.now() &- began, work: Self.threadCPUTime() &- workBegan,
                                period: UInt64(Double(frames) * frameNanoseconds))
            played += Int64(frames)
            shared.framesPlayed.store(played, ordering: .relaxed)
        }
        shared.xruns.store(driver.xrunCount, ordering: .relaxed)
        return block
    }

    /// The CPU time the calling thread has used, in nanoseconds (a clock read: real-time safe).
    private static func threadCPUTime() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// A callback driver's device failed.
    func fail(_ failure: AudioDriverFailure) {
        self.failure.store(Int64(failure.code), ordering: .relaxed)
        signalEnd()
    }

    /// Ends the loop once (async-signal-safe, no lock: the semaphore is a futex).
    func signalEnd() {
        if ended.exchange(true, ordering: .acquiringAndReleasing) == false { endSignal.post() }
    }

    /// The render thread of a blocking driver.
    func run(_ driver: any BlockingAudioDriver) {
        let failure = renderUntilDone(driver)
        RealtimeScheduling.leaveRealtimeClass()
        let end: PlaybackEnd
        if let failure {
            try? driver.finish(draining: false)
            end = .failed(driver.error(for: failure))
        } else {
            end = finish { (draining: Bool) throws(AudioDriverError) in try driver.finish(draining: draining) }
        }
        self.end = end
        onEnd?(end)
    }

    /// The helper thread of a callback driver: waits for the end, then stops the driver.
    func waitAndStop(_ driver: any CallbackAudioDriver) {
        RealtimeScheduling.leaveRealtimeClass()
        while !endSignal.wait() {}
        let code = failure.load(ordering: .relaxed)
        let end: PlaybackEnd
        if code != Self.noFailure {
            try? driver.stop(draining: false)
            end = .failed(driver.error(for: AudioDriverFailure(code: Int32(truncatingIfNeeded: code))))
        } else {
            end = finish { (draining: Bool) throws(AudioDriverError) in try driver.stop(draining: draining) }
        }
        self.end = end
        onEnd?(end)
    }

    /// Ends a run that did not fail: drains when it completed or the stop asked for it.
    private func finish(_ stop: (Bool) throws(AudioDriverError) -> Void) -> PlaybackEnd {
        let completed = !shared.stopRequested.load(ordering: .acquiring)
        do {
            try stop(completed || shared.drainOnStop.load(ordering: .relaxed))
        } catch {
            return .failed(error)
        }
        return completed ? .completed : .stopped
    }

    /// The real-time part: no allocation, locks, logging or I/O besides `driver.write`.
    private func renderUntilDone(_ driver: any BlockingAudioDriver) -> AudioDriverFailure? {
        driver.begin()
        let period = driver.periodFrames
        while true {
            let block = cycle(frameCount: period)
            if ended.load(ordering: .relaxed) { return nil }
            let frames = block?.frameLength ?? min(period, Int(clamping: (frameLimit ?? .max) - played))
            do {
                try driver.write(block, frameCount: frames)
            } catch {
                return error
            }
        }
    }
}
