import Foundation
import Synchronization
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// The FluidSynth shell face: a TCP server speaking FluidSynth's shell protocol (`fluidsynth -s`,
/// one command per line) over a `SoundModuleControl`, for the scripts and programs that drive
/// FluidSynth that way. Binds to the endpoint given (127.0.0.1 unless an address is given); closes
/// connections from peers `access` refuses. Lines longer than `ShellRequest.maximumLineLength` are
/// answered with one error and skipped. A thread per connection (a handful are expected), at most
/// `maximumConnections`; a connection that sends nothing for `idleLimit` seconds is told so and
/// closed, so idle clients cannot keep the others out for long.
public final class ShellServer: Sendable {
    public let endpoint: ControlEndpoint
    /// The port bound (the endpoint's, or the one the system chose for port 0).
    public let port: UInt16
    /// The most connections served at once; one more is told so and closed.
    public static let maximumConnections = 32
    /// How long a connection may send nothing before it is closed (seconds; 300 unless set before `start()`).
    public var idleLimit: Double {
        get { settings.withLock { $0.idleLimit } }
        set { settings.withLock { $0.idleLimit = newValue } }
    }
    /// Told of refused peers and connection problems (one line each).
    public var log: (@Sendable (String) -> Void)? {
        get { settings.withLock { $0.log } }
        set { settings.withLock { $0.log = newValue } }
    }
    private let settings = Mutex<(idleLimit: Double, log: (@Sendable (String) -> Void)?)>((300, nil))

    private let session: ShellSession
    private let access: ControlAccess
    private let listener: Int32
    private let connections = OpenConnections()
    private let accepting = ServiceThread()

    /// Binds and listens; `start()` accepts.
    public init(control: SoundModuleControl, endpoint: ControlEndpoint, access: ControlAccess) throws(ControlFaceError) {
        self.endpoint = endpoint
        self.access = access
        session = ShellSession(control: control)
        guard let address = endpoint.resolvedAddress() else { throw ControlFaceError("shell: cannot resolve \(endpoint.host)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlFaceError("shell: socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = endpoint.port.bigEndian
        socketAddress.sin_addr = address
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ControlFaceError("shell: cannot listen on \(endpoint): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: socketAddress.sin_port)
        listener = fd
    }

    deinit { stop() }

    /// Accepts connections on a thread of its own.
    public func start() {
        accepting.start(name: "seqplay shell") { [self] in acceptLoop() }
    }

    /// Closes the listener and every connection.
    public func stop() {
        accepting.requestStop()
        guard connections.stop(closing: listener) else { return }
        accepting.join()
    }

    private var isStopped: Bool { connections.isStopped }

    private func acceptLoop() {
        while !isStopped {
            guard let (fd, address) = connections.accept(on: listener) else { return }
            let peer = withUnsafeBytes(of: address) { $0.load(as: sockaddr_in.self) }
            guard access.accepts(peer.sin_addr.s_addr) else {
                log?("shell: refused a connection from \(String(cString: inet_ntoa(peer.sin_addr))) (not loopback nor --control-allow)")
                close(fd)
                continue
            }
            guard connections.admit(fd, limit: Self.maximumConnections) else {
                if !isStopped { _ = send("too many connections (\(Self.maximumConnections)): try again later\n", to: fd) }
                close(fd)
                continue
            }
            var noDelay: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            var idle = timeval(tv_sec: Int(idleLimit), tv_usec: Int(idleLimit * 1_000_000) % 1_000_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
            connections.serve(fd, threadName: "seqplay shell connection") { [self] in serve(fd) }
        }
    }

    /// Reads lines and answers them until the peer closes or quits.
    private func serve(_ fd: Int32) {
        var pending: [UInt8] = []
        var skipping = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !isStopped {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                _ = send("idle for \(Self.seconds(idleLimit)) s: closed\n", to: fd)
                return
            }
            guard count > 0 else { return }
            var start = 0
            for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                if skipping {
                    skipping = false
                } else {
                    pending.append(contentsOf: buffer[start..<index])
                    let line = String(decoding: pending, as: UTF8.self)
                    let (text, close) = session.answer(line[...])
                    if !text.isEmpty, !send(text, to: fd) { return }
                    if close { return }
                }
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            if !skipping { pending.append(contentsOf: buffer[start..<count]) }
            if pending.count > ShellRequest.maximumLineLength {
                pending.removeAll()
                skipping = true
                if !send("line too long (over \(ShellRequest.maximumLineLength) bytes): ignored\n", to: fd) { return }
            }
        }
    }

    /// `value` seconds as the idle message says them: whole where whole.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value))" : "\(value)"
    }

    private func send(_ text: String, to fd: Int32) -> Bool {
        sendAll(Array(text.utf8)[...], to: fd)
    }
}
