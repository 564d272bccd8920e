import Foundation
import SeqplaySupport
import Synchronization

/// Where a sound module keeps its state between runs (`--state FILE`): read at start, written on
/// change (debounced, atomically through OutputFiles). A file that cannot be read as a state is
/// renamed aside (`FILE.damaged`, or `FILE.damaged.2`… when that is taken) and reported in one line;
/// never fatal.
public final class ControlStateFile: Sendable {
    /// The file.
    public let path: String
    /// How long after the last change the file is written.
    public let delay: Double
    /// Told of each write that failed (one line).
    public var onWriteFailure: (@Sendable (String) -> Void)? {
        get { shared.withLock { $0.onWriteFailure } }
        set { shared.withLock { $0.onWriteFailure = newValue } }
    }

    private let queue = DispatchQueue(label: "seqplay.control.state-file")
    /// The state to write next, and whether its write is scheduled: touched only on `queue`.
    private let pending = Mutex<(state: ControlState?, scheduled: Bool)>((nil, false))
    /// The bytes last read or written (writes run on `queue`, or on the caller's thread before it follows).
    private let lastWritten = Mutex<Data?>(nil)
    private let shared = Mutex<(onWriteFailure: (@Sendable (String) -> Void)?, subscription: ControlSubscription?)>((nil, nil))

    public init(path: String, delay: Double = 0.5) {
        self.path = path
        self.delay = delay
    }

    /// `$XDG_STATE_HOME/seqplay/state.json`, else `~/.local/state/seqplay/state.json`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/seqplay/state.json" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/seqplay/state.json"
    }

    /// What reading the file found.
    public enum ReadResult: Sendable {
        /// No file yet.
        case missing
        case state(ControlState)
        /// The file was damaged and renamed to `movedTo` (nil: it could not be moved); `reason` says why.
        case damaged(reason: String, movedTo: String?)
    }

    /// Reads the state; a damaged file is renamed aside.
    public func read() -> ReadResult {
        guard FileManager.default.fileExists(atPath: path) else { return .missing }
        let reason: String
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let state = try JSONDecoder().decode(ControlState.self, from: data)
            guard state.channels.allSatisfy({ (0...15).contains($0.channel) }) else {
                throw CocoaError(.coderInvalidValue)
            }
            lastWritten.withLock { $0 = data }
            return .state(state)
        } catch let error as DecodingError {
            reason = Self.describe(error)
        } catch {
            reason = (error as NSError).localizedDescription
        }
        // Set aside under a name of its own: a file damaged before keeps its place (FILE.damaged, FILE.damaged.2, …).
        var aside = path + ".damaged", number = 1
        while FileManager.default.fileExists(atPath: aside) {
            number += 1
            aside = path + ".damaged.\(number)"
        }
        let moved = rename(path, aside) == 0
        return .damaged(reason: reason, movedTo: moved ? aside : nil)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context): return "not JSON (\(context.debugDescription))"
        case .keyNotFound(let key, _): return "no \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: return "not a state"
        }
    }

    /// Writes `state` now (atomically), creating the directory if needed.
    public func write(_ state: ControlState) throws {
        let data = state.jsonData(pretty: true)
        guard data != lastWritten.withLock({ $0 }) else { return }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try OutputFile.write(data, to: path)
        lastWritten.withLock { $0 = data }
    }

    /// Writes `state` `delay` seconds from now, unless a newer one comes first (then that one).
    public func schedule(_ state: ControlState) {
        queue.async { [self] in
            let alreadyScheduled = pending.withLock { pending in
                pending.state = state
                let wasScheduled = pending.scheduled
                pending.scheduled = true
                return wasScheduled
            }
            guard !alreadyScheduled else { return }
            queue.asyncAfter(deadline: .now() + delay) { [self] in
                let due = pending.withLock { pending in
                    pending.scheduled = false
                    return pending.state.take()
                }
                if let due { save(due) }
            }
        }
    }

    /// Saves `control`'s state after each change from now on (debounced).
    public func follow(_ control: SoundModuleControl) {
        let subscription = control.subscribe { [weak self, weak control] event in
            guard let self, let control else { return }
            if case .note = event { return }  // notes are not state
            self.schedule(control.state)
        }
        shared.withLock { $0.subscription = subscription }
    }

    /// Writes what is pending (or `state`) now; for the end of a run.
    public func flush(_ state: ControlState? = nil) {
        queue.sync {
            let waiting = pending.withLock { $0.state.take() }
            if let latest = state ?? waiting { save(latest) }
        }
    }

    /// Writes `state` now, telling `onWriteFailure` when that fails.
    private func save(_ state: ControlState) {
        do { try write(state) } catch { onWriteFailure?("cannot save the state to \(path): \(error)") }
    }
}
