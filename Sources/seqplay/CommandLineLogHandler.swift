import Foundation
import Logging

/// How the library's log messages (FluidSynth's warnings among them: a missing instrument and what
/// plays instead) appear on the command line: one line on standard error in seqplay's own form,
/// `seqplay: warning: …`, without the timestamp and logger label of swift-log's default handler.
struct CommandLineLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        CommandLineOutput.note("\(event.level): \(event.message)")
    }

    /// Makes it the handler of every logger of this process (once, before any logging).
    static let installed: Void = LoggingSystem.bootstrap { _ in CommandLineLogHandler() }
}
