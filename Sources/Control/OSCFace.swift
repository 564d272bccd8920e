import Foundation
import Synchronization

/// The OSC face: OSC over UDP (through liblo, `OSCServer`) over a `SoundModuleControl`, in the
/// address space `OSCRequest` documents. `/seqplay/state` replies to the sender; `/seqplay/subscribe`
/// makes the sender get every change. Messages from peers `access` refuses, malformed packets and
/// messages outside the address space are ignored with one log line each (the latter rate-limited), its outside
/// text escaped (`LogText`). Commands are queued without waiting for the render thread; a state request
/// sees them.
public final class OSCFace: Sendable {
    public let endpoint: ControlEndpoint
    public var port: UInt16 { server.port }
    /// The most subscribers kept (the oldest is dropped).
    public static let maximumSubscribers = 32

    private let control: SoundModuleControl
    private let server: OSCServer
    private let access: ControlAccess
    private let log: @Sendable (String) -> Void
    /// Where changes go (`/seqplay/subscribe`), the oldest first.
    private let subscribers = Mutex<[OSCAddress]>([])
    private let subscription = Mutex<ControlSubscription?>(nil)

    public init(control: SoundModuleControl, endpoint: ControlEndpoint, access: ControlAccess,
                log: @escaping @Sendable (String) -> Void) throws(ControlFaceError) {
        self.control = control
        self.endpoint = endpoint
        self.access = access
        // Outside text (addresses, paths) reaches the log escaped: one line each, whatever a client sends.
        let escapingLog: @Sendable (String) -> Void = { log(LogText.escaped($0)) }
        self.log = escapingLog
        OSCServer.log = escapingLog
        guard let address = endpoint.resolvedAddress() else { throw ControlFaceError("OSC: cannot resolve \(endpoint.host)") }
        var text = [CChar](repeating: 0, count: 64)
        var copy = address
        inet_ntop(AF_INET, &copy, &text, 64)
        do {
            server = try OSCServer(host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: endpoint.port)
        } catch {
            throw ControlFaceError("OSC: \(error)")
        }
    }

    /// Starts answering messages and sending changes to subscribers.
    public func start() {
        let subscribed = control.subscribe { [weak self] event in
            guard let self else { return }
            let targets = subscribers.withLock { $0 }
            guard !targets.isEmpty else { return }
            let messages = OSCRequest.messages(for: event)
            for target in targets { for message in messages { server.send(message, to: target) } }
        }
        subscription.withLock { $0 = subscribed }
        server.start { [weak self] message, sender in self?.handle(message, from: sender) }
    }

    public func stop() {
        subscription.withLock { $0 }?.cancel()
        server.stop()
    }

    private func handle(_ message: OSCMessage, from sender: OSCAddress) {
        guard access.accepts(host: sender.host) else {
            log("OSC: ignored \(message.path.prefix(64)) from \(sender) (not loopback nor --control-allow)")
            return
        }
        switch OSCRequest.parse(message) {
        case .failure(let error):
            log("OSC: \(error.message)")
            server.send(OSCMessage("/seqplay/error", [.string(error.message)]), to: sender)
        case .success(.state(let port)):
            let target = port.map { OSCAddress(host: sender.host, port: "\($0)") } ?? sender
            control.settle()
            for reply in OSCRequest.messages(for: control.state) { server.send(reply, to: target) }
        case .success(.subscribe(let port)):
            let target = port.map { OSCAddress(host: sender.host, port: "\($0)") } ?? sender
            subscribers.withLock { subscribers in
                subscribers.removeAll { $0 == target }
                subscribers.append(target)
                if subscribers.count > Self.maximumSubscribers { subscribers.removeFirst() }
            }
        case .success(.unsubscribe(let port)):
            let target = port.map { OSCAddress(host: sender.host, port: "\($0)") } ?? sender
            subscribers.withLock { subscribers in subscribers.removeAll { $0 == target } }
        case .success(.perform(let command)):
            do {
                try control.performWithoutWaiting(command)
            } catch {
                log("OSC: \(message.path.prefix(128)): \(error)")
                server.send(OSCMessage("/seqplay/error", [.string("\(message.path.prefix(128)): \(error)")]), to: sender)
            }
        }
    }
}
