import CFluidSynth
import Foundation
import Logging
import SeqplaySupport
import Synchronization

/// Routes FluidSynth's log output (which it otherwise prints to stderr) into seqplay's logging,
/// under the label `seqplay.fluidsynth`.
///
/// FluidSynth logs from whatever thread it is on, the audio render thread included (a missing preset,
/// running out of polyphony). So its messages are only queued where they arise, without allocating or
/// locking, and reach the logger when a normal thread calls `forwardPendingMessages()`; the
/// `Synthesizer` does so after each of its non-real-time calls, renderers between render cycles.
/// Each distinct message is logged once per process (a missing instrument warned on every loop pass
/// is one line).
///
/// GLib's own warnings from FluidSynth's libraries (libinstpatch asserting while FluidSynth tries a
/// broken SF2 as DLS: "** CRITICAL **: ipatch_container_init_iter…") are queued too, at debug level:
/// they describe FluidSynth's internals, not the user's file.
public enum FluidSynthLog {
    /// The label of the logger FluidSynth's messages go to.
    public static let label = "seqplay.fluidsynth"

    private static let queue = LogMessageQueue()

    /// The texts already logged, so each is logged once.
    private static let logged = LoggedTexts()

    /// Logs every message FluidSynth has queued since the last call, each distinct one once (the
    /// first `maximumDistinctTexts` distinct ones). Call from a normal thread.
    public static func forwardPendingMessages() {
        log(takePendingMessages())
    }

    /// Takes the messages queued since the last call without logging them.
    static func takePendingMessages() -> [LogMessageQueue.Message] {
        var messages: [LogMessageQueue.Message] = []
        while let message = queue.take() { messages.append(message) }
        return messages
    }

    /// Logs `messages`, leaving out any logged before.
    static func log(_ messages: [LogMessageQueue.Message]) {
        for message in messages where logged.insert(message.text) {
            // A logger per message (they are rare), so it uses whatever handler the program bootstrapped.
            Logger(label: label).log(level: swiftLogLevel(message.level), "\(message.text)")
        }
    }

    /// The first error or panic among `messages` (FluidSynth's reason for a refusal), without its
    /// "[FluidSynth] " prefix.
    static func firstError(in messages: [LogMessageQueue.Message]) -> String? {
        let errorLevels = [Int32(FLUID_PANIC.rawValue), Int32(FLUID_ERR.rawValue)]
        return messages.first { errorLevels.contains($0.level) }.map { message in
            message.text.hasPrefix("[FluidSynth] ") ? String(message.text.dropFirst(13)) : message.text
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
        // GLib is FluidSynth's dependency, not seqplay's: its handler is found at run time.
        typealias GLogFunc = @convention(c) (UnsafePointer<CChar>?, UInt32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
        typealias SetDefaultHandler = @convention(c) (GLogFunc, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "g_log_set_default_handler") else { return }
        let glibPost: GLogFunc = { _, _, message, _ in
            guard let message else { return }
            FluidSynthLog.queue.post(level: Int32(FLUID_DBG.rawValue), text: message)
        }
        _ = unsafeBitCast(symbol, to: SetDefaultHandler.self)(glibPost, nil)
    }()

    /// The most distinct texts logged: a dense song makes FluidSynth report every voice it steals
    /// ("Killing voice …", a new text each time), which would otherwise fill memory and the log.
    static let maximumDistinctTexts = 1024

    /// A set of strings any thread may add to, of at most `maximumDistinctTexts`.
    private final class LoggedTexts: Sendable {
        private let texts = Mutex<Set<String>>([])
        /// Adds `text`; true if it was not there before and there was room for it.
        func insert(_ text: String) -> Bool {
            texts.withLock { $0.count < FluidSynthLog.maximumDistinctTexts && $0.insert(text).inserted }
        }
    }

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
