import Control
import FlyingFox
import Foundation
import SeqplaySupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP face's listening socket, in front of FlyingFox: it accepts each client, checks what the
/// client sends (`HTTPRequestCheck`: the request line, header lines and head bounded, refused with 414
/// or 431 before FlyingFox reads a byte of them) and passes the checked bytes to FlyingFox, which
/// listens on a Unix socket of its own in a private directory; FlyingFox's answers pass back as they
/// come. Once a connection's first request is answered with 101 (the WebSocket), its bytes pass
/// unchecked both ways. FlyingFox sees each connection come from a Unix address of the gate's;
/// `peer(of:)` gives the client's real address. A thread per connection, at most
/// `maximumConnections`; a request head not complete within `headTimeLimit` seconds, or nothing
/// either way for `idleLimit` seconds (but on a WebSocket), closes it.
final class HTTPRequestGate: Sendable {
    /// The most connections at once (WebSocket clients included); one more is closed at once.
    static let maximumConnections = 128
    /// Seconds a request head may take to arrive, from its first byte.
    static let headTimeLimit = 10.0
    /// Seconds a connection may pass nothing either way before it is closed (not a WebSocket's).
    static let idleLimit = 120.0

    /// The TCP port the gate listens on.
    let port: UInt16
    /// Where FlyingFox listens (a Unix socket in `directory`).
    let backendPath: String
    private let directory: String
    private let listener: Int32
    /// What the connections share: the client behind each of the gate's Unix names, the last name given.
    private struct State {
        var peers: [String: HTTPRequest.Address] = [:]
        var nextName = 0
    }
    private let state = Mutex(State())
    /// The clients' connections and the backend ends of them, and whether `stop()` was called.
    private let connections = OpenConnections()
    private let accepting = ServiceThread()

    /// Listens on `address` (numeric, IPv4 or IPv6); `start()` accepts.
    init(address: ControlEndpoint) throws(ControlHTTPServer.StartError) {
        let ipv6 = address.host.contains(":")
        var storage = sockaddr_storage()
        storage.ss_family = sa_family_t(ipv6 ? AF_INET6 : AF_INET)
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            // sockaddr_in and sockaddr_in6 both keep the port right after the family, in network order.
            raw.storeBytes(of: address.port.bigEndian, toByteOffset: 2, as: UInt16.self)
            let offset = ipv6 ? MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)! : MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
            return inet_pton(ipv6 ? AF_INET6 : AF_INET, address.host, raw.baseAddress! + offset) == 1
        }
        guard parsed else { throw ControlHTTPServer.StartError(description: "--http: \(address.host) is not an address to listen on") }
        let length = socklen_t(ipv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let fd = socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw ControlHTTPServer.StartError(description: "cannot listen for HTTP on \(address): \(reason)")
        }
        var name = sockaddr_storage()
        var nameLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &name) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &nameLength) } }
        port = Self.address(of: name).port
        listener = fd
        // A private directory (0700) for FlyingFox's socket and the gate's own ends: only this user reaches them.
        let base = FileManager.default.temporaryDirectory.path.utf8.count < 60 ? FileManager.default.temporaryDirectory.path : "/tmp"
        var template = Array("\(base)/seqplay-http-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            close(fd)
            throw ControlHTTPServer.StartError(description: "cannot make a directory for the HTTP face in \(base): \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        backendPath = directory + "/http"
    }

    deinit { stop() }

    /// Accepts connections on a thread of its own (FlyingFox listens on `backendPath` by now).
    func start() {
        accepting.start(name: "seqplay http gate") { [self] in acceptLoop() }
    }

    /// Closes the listener and every connection, and removes the private directory.
    func stop() {
        accepting.requestStop()
        guard connections.stop(closing: listener) else { return }
        accepting.join()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The client's address behind a request FlyingFox saw come from `address` (the gate's Unix end);
    /// `address` itself when it is not one of the gate's.
    func peer(of address: HTTPRequest.Address?) -> HTTPRequest.Address? {
        guard case .unix(let path) = address else { return address }
        return state.withLock { $0.peers[path] } ?? address
    }

    fileprivate var isStopped: Bool { connections.isStopped }

    private func acceptLoop() {
        while !isStopped {
            guard let (fd, peer) = connections.accept(on: listener) else { return }
            guard connections.admit(fd, limit: Self.maximumConnections) else { close(fd); continue }
            let (host, port) = Self.address(of: peer)
            let address: HTTPRequest.Address = host.contains(":") ? .ip6(host, port: port) : .ip4(host, port: port)
            connections.serve(fd, threadName: "seqplay http connection") { [self] in
                Connection(client: fd, peer: address, gate: self).run()
            }
        }
    }

    /// A Unix socket connected to FlyingFox from a name of the gate's own, which `peer(of:)` maps to `peer`.
    fileprivate func connectBackend(for peer: HTTPRequest.Address) -> (fd: Int32, name: String)? {
        let name: String = state.withLock { state in
            state.nextName += 1
            return "\(directory)/c\(state.nextName)"
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        func unixAddress(_ path: String) -> sockaddr_un {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(path.utf8.prefix(raw.count - 1))
                raw.copyBytes(from: bytes)
            }
            return address
        }
        var own = unixAddress(name), server = unixAddress(backendPath)
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        state.withLock { $0.peers[name] = peer }
        let connected = withUnsafePointer(to: &own) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } } == 0
            && withUnsafePointer(to: &server) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } } == 0
        unlink(name)  // the socket keeps its name for FlyingFox's getpeername
        guard connected else {
            close(fd)
            forget(name)
            return nil
        }
        return (fd, name)
    }

    fileprivate func forget(_ name: String) {
        state.withLock { _ = $0.peers.removeValue(forKey: name) }
    }

    fileprivate func track(_ fd: Int32, _ open: Bool) {
        if open { _ = connections.admit(fd) } else { connections.remove(fd) }
    }

    /// The numeric host and port of a socket address.
    private static func address(of storage: sockaddr_storage) -> (host: String, port: UInt16) {
        var copy = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET6:
            return withUnsafeBytes(of: &copy) { raw in
                var ip6 = raw.load(as: sockaddr_in6.self)
                inet_ntop(AF_INET6, &ip6.sin6_addr, &text, socklen_t(text.count))
                return (String(cString: text), UInt16(bigEndian: ip6.sin6_port))
            }
        default:
            return withUnsafeBytes(of: &copy) { raw in
                var ip4 = raw.load(as: sockaddr_in.self)
                inet_ntop(AF_INET, &ip4.sin_addr, &text, socklen_t(text.count))
                return (String(cString: text), UInt16(bigEndian: ip4.sin_port))
            }
        }
    }
}

/// One client's connection through the gate: both directions forwarded without blocking (bytes
/// waiting for one side are not added to while they wait, so neither side can stall the other).
private struct Connection {
    let client: Int32
    let peer: HTTPRequest.Address
    let gate: HTTPRequestGate

    private enum Mode { case checking, awaitingUpgrade, passing }

    func run() {
        var check = HTTPRequestCheck()
        var backend: (fd: Int32, name: String)?
        var mode = Mode.checking
        var held: [UInt8] = []  // the client's bytes after an upgrade request, until its answer is known
        var head: [UInt8] = []  // a request head read so far, not yet passed on
        var toBackend: [UInt8] = [], toClient: [UInt8] = []
        var clientOpen = true, backendWritable = true
        var refusal: HTTPRequestCheck.Refusal?
        var headStarted: Date?
        var lastActivity = Date()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        defer {
            if let backend {
                gate.track(backend.fd, false)
                close(backend.fd)
                gate.forget(backend.name)
            }
        }

        /// Checks `bytes` and queues for FlyingFox what may go (a request head only once it is whole and
        /// within its bounds: FlyingFox never sees part of one); false when the connection is to end now.
        func forward(_ bytes: ArraySlice<UInt8>) -> Bool {
            if mode == .passing {
                toBackend += bytes
                return true
            }
            var rest = bytes
            while !rest.isEmpty {
                let step = check.take(rest)
                let part = rest.prefix(step.accepted)
                rest = rest.dropFirst(step.accepted)
                if let refused = step.refusal {
                    refusal = refused
                    return false
                }
                if step.isHead {
                    head.append(contentsOf: part)
                    guard step.endsHead else { continue }
                }
                if backend == nil {
                    guard let made = gate.connectBackend(for: peer) else { return false }
                    backend = made
                    gate.track(made.fd, true)
                }
                if step.isHead {
                    toBackend += head
                    head.removeAll(keepingCapacity: true)
                } else {
                    toBackend += part
                }
                if step.upgradeRequested {
                    mode = .awaitingUpgrade
                    held = Array(rest)
                    return true
                }
            }
            return true
        }

        while !gate.isStopped {
            let readClient = clientOpen && mode != .awaitingUpgrade && toBackend.isEmpty
            let clientEvents = (readClient ? POLLIN : 0) | (toClient.isEmpty ? 0 : POLLOUT)
            // A side with nothing to do now is left out (poll ignores -1), so its hang-up cannot wake the loop in vain.
            var fds = [pollfd(fd: clientEvents == 0 ? -1 : client, events: Int16(clientEvents), revents: 0)]
            if let backend {
                let events = (toClient.isEmpty ? POLLIN : 0) | (toBackend.isEmpty ? 0 : POLLOUT)
                fds.append(pollfd(fd: events == 0 ? -1 : backend.fd, events: Int16(events), revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), 1000)
            if ready < 0, errno != EINTR { break }
            if mode == .checking, clientOpen, let started = headStarted, Date().timeIntervalSince(started) > HTTPRequestGate.headTimeLimit { break }
            if mode != .passing, Date().timeIntervalSince(lastActivity) > HTTPRequestGate.idleLimit { break }
            guard ready > 0 else { continue }
            lastActivity = Date()
            if fds[0].revents & Int16(POLLOUT) != 0 {
                guard Self.sendSome(&toClient, to: client) else { break }
            }
            if readClient, fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 {
                    clientOpen = false
                    if backend == nil { break }
                } else {
                    guard forward(buffer[0..<count]) else { break }
                }
            }
            if let backend, fds.count > 1 {
                if fds[1].revents & Int16(POLLOUT) != 0 {
                    guard Self.sendSome(&toBackend, to: backend.fd) else { break }
                }
                if toClient.isEmpty, fds[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    let count = buffer.withUnsafeMutableBytes { recv(backend.fd, $0.baseAddress, $0.count, 0) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    toClient += buffer[0..<count]
                    if mode == .awaitingUpgrade {
                        mode = buffer[0..<count].starts(with: Array("HTTP/1.1 101".utf8)) ? .passing : .checking
                        let rest = held
                        held = []
                        if !rest.isEmpty, !forward(rest[...]) { break }
                    }
                }
            }
            if !clientOpen, backendWritable, toBackend.isEmpty, let backend {
                // The client is done sending: FlyingFox finishes what it has and closes.
                shutdown(backend.fd, Int32(SHUT_WR))
                backendWritable = false
            }
            if mode == .checking, check.isReadingHead { headStarted = headStarted ?? Date() } else { headStarted = nil }
        }
        // What FlyingFox answered is passed on before the connection closes (the client may not read: bounded by the idle limit's second).
        _ = Self.send(toClient[...], to: client)
        if let refusal {
            _ = Self.send(refusal.response[...], to: client)
            Self.drain(client)
        }
    }

    /// Sends what `fd` takes of `bytes` now (without blocking) and drops it from them; false when the
    /// peer is gone.
    static func sendSome(_ bytes: inout [UInt8], to fd: Int32) -> Bool {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if sent < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
        bytes.removeFirst(sent)
        return true
    }

    /// Writes all of `bytes` to `fd`, waiting at most a second for it to take them; false when it cannot.
    static func send(_ bytes: ArraySlice<UInt8>, to fd: Int32) -> Bool {
        var interval = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        return sendAll(bytes, to: fd)
    }

    /// Reads and drops what the client still sends (at most 1 MiB, for at most a second) after its
    /// refusal was sent, so closing does not reset the connection before the client has read it.
    static func drain(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var interval = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var total = 0
        let end = Date().addingTimeInterval(1)
        while total < 1 << 20, Date() < end {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            total += count
        }
    }
}
