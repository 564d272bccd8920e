import Control
import FlyingFox
import Foundation
import Synchronization

/// The WebSocket `/api/events`: each client first gets `{"type": "state", "state": {…}}`, then every
/// `ControlEvent` as the control model encodes it (`{"type": "channel", "channel": {…}}`, …), the
/// output's level 20 times a second while it is not silent (`{"type": "levels", "master": [dB, dB]}`)
/// and the notes played (`{"type": "notes", "notes": [{"channel": 1, "key": 60, "velocity": 100}]}`,
/// velocity 0 for a note's end). What clients send is ignored (a close ends the stream).
final class EventStream: WSMessageHandler, Sendable {
    private let control: SoundModuleControl
    private let monitor: SoundMonitor?
    /// Each client's stream; a broadcast yields to them under the mutex, so a new client misses nothing.
    private let clients = Mutex<[UUID: AsyncStream<WSMessage>.Continuation]>([:])
    /// What `start` opened and `stop` closes.
    private let running = Mutex<(subscription: ControlSubscription?, pulse: (any DispatchSourceTimer)?)>((nil, nil))
    /// The levels sent last (the pulse's queue).
    private let lastLevels = Mutex<[Double]>([])

    /// Messages a slow client has not taken yet; past this the oldest go (the client can reload the state).
    static let bufferedMessages = 2048

    init(control: SoundModuleControl, monitor: SoundMonitor?) {
        self.control = control
        self.monitor = monitor
    }

    /// Starts passing on the control's events and, with a monitor, its levels and notes.
    func start() {
        let subscription = control.subscribe { [weak self] event in
            if case .note(let channel, let key, let velocity) = event {
                // A face's note (shell noteon, OSC note) moves the strip meters as an input's does.
                self?.broadcast(#"{"notes":[{"channel":\#(channel + 1),"key":\#(key),"velocity":\#(velocity)}],"type":"notes"}"#)
                return
            }
            guard let self, let text = Self.json(event) else { return }
            self.broadcast(text)
        }
        running.withLock { $0.subscription = subscription }
        guard monitor != nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "seqplay.http.pulse"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(50), leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in self?.sendPulse() }
        timer.resume()
        running.withLock { $0.pulse = timer }
    }

    /// Ends every client's stream and stops listening to the control.
    func stop() {
        running.withLock { running in
            running.subscription?.cancel()
            running.pulse?.cancel()
            running = (nil, nil)
        }
        let ended = clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in ended {
            client.yield(.close(.normalClosure))
            client.finish()
        }
    }

    var clientCount: Int { clients.withLock { $0.count } }

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let id = UUID()
        let (messages, continuation) = AsyncStream<WSMessage>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferedMessages))
        // The state first, then (registered under the same lock as broadcasts) every change after it.
        clients.withLock { clients in
            let state = String(decoding: control.state.jsonData(), as: UTF8.self)
            continuation.yield(.text(#"{"state":\#(state),"type":"state"}"#))
            clients[id] = continuation
        }
        Task { [weak self] in
            for await message in client {
                if case .close = message { break }
            }
            self?.remove(id)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return messages
    }

    private func remove(_ id: UUID) {
        let removed = clients.withLock { $0.removeValue(forKey: id) }
        removed?.finish()
    }

    private func broadcast(_ text: String) {
        clients.withLock { clients in
            for client in clients.values { client.yield(.text(text)) }
        }
    }

    /// Levels (while any channel is above -120 dB or just fell to it) and the notes since the last pulse.
    private func sendPulse() {
        guard let monitor else { return }
        let notes = monitor.takeNotes()
        guard clientCount > 0 else { return }
        if !notes.isEmpty {
            let list = notes.map { #"{"channel":\#($0.channel + 1),"key":\#($0.key),"velocity":\#($0.velocity)}"# }
            broadcast(#"{"notes":[\#(list.joined(separator: ","))],"type":"notes"}"#)
        }
        let levels = monitor.peakLevels().map { ($0 * 10).rounded() / 10 }
        let changed = lastLevels.withLock { last in
            defer { last = levels }
            return levels != last
        }
        if changed {
            broadcast(#"{"master":[\#(levels.map { String($0) }.joined(separator: ","))],"type":"levels"}"#)
        }
    }

    static func json(_ event: ControlEvent) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(event)).map { String(decoding: $0, as: UTF8.self) }
    }
}
