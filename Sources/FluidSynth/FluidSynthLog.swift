import CFluidSynth
import Logging

/// Routes FluidSynth's log output (which it otherwise prints to stderr) into seqplay's logging,
/// under the label `seqplay.fluidsynth`.
///
/// FluidSynth logs from whatever thread it is on, the audio render thread included (a missing preset,
/// running out of polyphony). So its messages are only queued where they arise, without allocating or
/// locking, and reach the logger when a normal thread calls `forwardPendingMessages()`; the
/// `Synthesizer` does so after each of its non-real-time calls, renderers between render cycles.
public enum FluidSynthLog {
    /// The label of the logger FluidSynth's messages go to.
    public static let label = "seqplay.fluidsynth"

    private static let queue = LogMessageQueue()

    /// Logs every message FluidSynth has queued since the last call. Call from a normal thread.
    public static func forwardPendingMessages() {
        while let message = queue.take() {
            // A logger per message (they are rare), so it uses whatever handler the program bootstrapped.
            Logger(label: label).log(level: swiftLogLevel(message.level), "\(message.text)")
        }
    }

    /// Messages lost because FluidSynth logged faster than they were forwarded.
    public static var droppedMessages: Int { queue.dropped }

    /// Installs the queuing function for every FluidSynth log level (idempotent).
    static func install() {
        _ = installed
    }

    private static let installed: Void = {
        let post: @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
            level, message, _ in
            guard let message else { return }
            FluidSynthLog.queue.post(level: level, text: message)
        }
        for level in [FLUID_PANIC, FLUID_ERR, FLUID_WARN, FLUID_INFO, FLUID_DBG] {
            fluid_set_log_function(Int32(level.rawValue), post, nil)
        }
    }()

    static func swiftLogLevel(_ fluidLevel: Int32) -> Logger.Level {
        switch UInt32(bitPattern: fluidLevel) {
        case FLUID_PANIC.rawValue: return .critical
        case FLUID_ERR.rawValue: return .error
        case FLUID_WARN.rawValue: return .warning
        case FLUID_INFO.rawValue: return .info
        default: return .debug
        }
    }
}
