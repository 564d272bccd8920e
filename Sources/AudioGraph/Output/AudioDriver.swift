/// A sound device as the output core sees it: its format, its period and how late what is written
/// is heard. A driver is one of two kinds: `BlockingAudioDriver` (the output's render thread writes
/// each period and the write blocks until the device wants the next: ALSA, a clock) or
/// `CallbackAudioDriver` (the device's own real-time thread asks for each cycle: JACK). Give either
/// to `RealtimeOutput(driver:)`.
public protocol AudioDriver: AnyObject {
    /// Frames per second the device plays.
    var sampleRate: Int { get }
    /// Channels the device plays; the engine renders as many.
    var channelCount: Int { get }
    /// Frames per cycle (period); for a callback driver, the most it asks for in one cycle.
    var periodFrames: Int { get }
    /// Frames between a frame handed to the driver and its being heard (the device buffer; 0 for a
    /// device that is not heard).
    var outputLatencyFrames: Int { get }
    /// Underruns recovered so far. Read on the real-time thread: must not allocate or lock.
    var xrunCount: Int { get }
}

/// A driver fed by blocking writes from the output's own render thread.
public protocol BlockingAudioDriver: AudioDriver {
    /// Called on the render thread just before the first period.
    func begin()
    /// Plays `frameCount` frames of `block` (silence when nil), blocking until the device wants the
    /// next period. Runs on the render thread: must not allocate, lock, log or do other I/O.
    func write(_ block: AudioBuffer?, frameCount: Int) throws(AudioDriverFailure)
    /// Called once after the last period, off real-time scheduling: plays what is buffered to the end
    /// (`draining`) or discards it.
    func finish(draining: Bool) throws(AudioDriverError)
    /// The full error for a failure `write` threw (called off the real-time path).
    func error(for failure: AudioDriverFailure) -> AudioDriverError
}

/// A driver whose own real-time thread asks for each cycle's audio.
public protocol CallbackAudioDriver: AudioDriver {
    /// Starts the device: from now on, on its real-time thread, it calls `cycle.render(frameCount:)`
    /// once per cycle and plays the block returned (silence for nil, and after a shorter block), and
    /// calls `cycle.fail(_:)` if the device fails. Returns once started.
    func start(_ cycle: AudioDriverCycle) throws(AudioDriverError)
    /// Stops the cycles (after playing what is buffered when `draining`). Called once, off the
    /// real-time thread, after `cycle` asked to end or failed, or on `RealtimeOutput.stop`.
    func stop(draining: Bool) throws(AudioDriverError)
    /// The full error for a failure reported through `cycle.fail(_:)` (called off the real-time path).
    func error(for failure: AudioDriverFailure) -> AudioDriverError
}

extension CallbackAudioDriver {
    public func error(for failure: AudioDriverFailure) -> AudioDriverError {
        AudioDriverError(.deviceDisappeared, "the audio device failed (code \(failure.code))")
    }
}

/// What a `CallbackAudioDriver`'s real-time thread calls each cycle. Made by `RealtimeOutput`.
public final class AudioDriverCycle: Sendable {
    private let loop: RenderLoop

    init(loop: RenderLoop) { self.loop = loop }

    /// The audio of the next `frameCount` frames (shorter at the end of a limited run), valid until the
    /// next call, or nil for silence. Does not allocate, lock or wait.
    public func render(frameCount: Int) -> AudioBuffer? { loop.cycle(frameCount: frameCount) }

    /// The output sample time of the next frame `render` returns: frames rendered since the output
    /// started (`RealtimeOutput.sampleTime`, read on the device's thread). Real-time safe.
    public var sampleTime: Int64 { loop.playedFrames }

    /// Reports that the device failed; the output stops the driver and ends with `.failed`.
    public func fail(_ failure: AudioDriverFailure) { loop.fail(failure) }
}

/// A failure a driver throws on the real-time path: a code the driver alone interprets (an errno,
/// an alsa-lib code). Carries no text, so throwing it does not allocate.
public struct AudioDriverFailure: Error, Sendable, Equatable {
    public let code: Int32
    public init(code: Int32) { self.code = code }
}

/// Why a sound device could not start or stopped playing: the kind, the driver's own explanation, and
/// the driver's own error (e.g. an `ALSAError`) for callers that know that driver.
public struct AudioDriverError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, whatever the driver.
    public enum Kind: Sendable, Equatable {
        /// The machine has no device of this driver at all (no sound card, no server).
        case noDevice
        /// The device could not be opened: unknown name, busy, no permission.
        case cannotOpen
        /// The device cannot do a setting that was asked for (format, channels, rate, period).
        case unsupportedSetting
        /// The device went away while in use.
        case deviceDisappeared
        /// Any other failure.
        case failed
    }

    public let kind: Kind
    public let description: String
    /// The driver's own error value.
    public let underlying: (any Error & Sendable)?

    public init(_ kind: Kind, _ description: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.description = description
        self.underlying = underlying
    }

    public static func == (lhs: AudioDriverError, rhs: AudioDriverError) -> Bool {
        lhs.kind == rhs.kind && lhs.description == rhs.description
    }
}
