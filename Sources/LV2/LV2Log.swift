import Foundation
import Logging
import SeqplaySupport
import Synchronization

/// Routes LV2 plugins' log messages (the log#log feature) into seqplay's logging, under the label
/// `seqplay.lv2`. Plugins may log from the render thread, so messages are only queued there (seqplay's
/// lock-free log queue, as FluidSynth's are) and reach the logger when a normal thread calls
/// `forwardPendingMessages()`; renderers do so between render cycles. Each distinct message is logged once.
public enum LV2Log {
    /// The label of the logger plugins' messages go to.
    public static let label = "seqplay.lv2"

    static let queue = LogMessageQueue()
    nonisolated(unsafe) private static var logged: Set<String> = []
    private static let lock = NSLock()

    /// Levels as queued: 0 error, 1 warning, 2 note, 3 trace.
    static func post(level: Int32, text: UnsafePointer<CChar>) { queue.post(level: level, text: text) }

    /// Logs every message plugins have queued since the last call, each distinct one once. Call from a
    /// normal thread.
    public static func forwardPendingMessages() {
        while let message = queue.take() {
            let isNew = lock.withLock { logged.insert(message.text).inserted }
            guard isNew else { continue }
            let level: Logger.Level = switch message.level {
            case 0: .error
            case 1: .warning
            case 2: .info
            default: .debug
            }
            Logger(label: label).log(level: level, "\(message.text)")
        }
    }

    /// Messages lost because plugins logged faster than they were forwarded.
    public static var droppedMessages: Int { queue.dropped }
}

/// The process-wide URID map and unmap (one numbering for every plugin instance, as LV2 expects).
final class LV2URIDMap: Sendable {
    static let shared = LV2URIDMap()

    private struct Table {
        var ids: [String: UInt32] = [:]
        /// The addresses of interned C strings, index = URID - 1; never freed (unmap returns pointers into them).
        var uris: [UInt] = []
    }
    private let table = Mutex(Table())

    func map(_ uri: String) -> UInt32 {
        table.withLock { table in
            if let id = table.ids[uri] { return id }
            table.uris.append(UInt(bitPattern: strdup(uri)))
            let id = UInt32(table.uris.count)
            table.ids[uri] = id
            return id
        }
    }

    func unmap(_ id: UInt32) -> UnsafePointer<CChar>? {
        let address = table.withLock { id >= 1 && Int(id) <= $0.uris.count ? $0.uris[Int(id) - 1] : 0 }
        return UnsafePointer(bitPattern: address)
    }
}
