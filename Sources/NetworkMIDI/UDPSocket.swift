#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 host and UDP port, e.g. 127.0.0.1:5004.
public struct NetworkMIDIAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host in dotted-quad form.
    public var host: String
    public var port: UInt16

    /// An address from a dotted-quad host; `nil` if `host` is not one.
    public init?(host: String, port: UInt16) {
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
        self.host = host
        self.port = port
    }

    /// Resolves "HOST:PORT" (a name or dotted quad), as given to `--listen` or `--network-connect`.
    public static func resolve(_ text: String) throws(NetworkMIDIError) -> NetworkMIDIAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw .badAddress(text, reason: "expected HOST:PORT")
        }
        let name = String(text[..<colon])
        if let address = NetworkMIDIAddress(host: name, port: port) { return address }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &result) == 0, let info = result else {
            throw .badAddress(text, reason: "cannot resolve host \(name)")
        }
        defer { freeaddrinfo(result) }
        let ipv4 = info.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
        return NetworkMIDIAddress(ipv4, port: port)
    }

    init(_ socketAddress: sockaddr_in, port: UInt16? = nil) {
        var address = socketAddress.sin_addr
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &address, &buffer, socklen_t(INET_ADDRSTRLEN))
        host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.port = port ?? UInt16(bigEndian: socketAddress.sin_port)
    }

    var socketAddress: sockaddr_in {
        var result = sockaddr_in()
        result.sin_family = sa_family_t(AF_INET)
        result.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &result.sin_addr)
        return result
    }

    /// True for 127.0.0.0/8.
    public var isLoopback: Bool { host.hasPrefix("127.") }

    /// The same host with another port.
    func withPort(_ port: UInt16) -> NetworkMIDIAddress {
        var copy = self
        copy.port = port
        return copy
    }

    public var description: String { "\(host):\(port)" }
}

/// A non-blocking IPv4 UDP socket bound to a local address.
final class UDPSocket {
    let descriptor: Int32
    let localAddress: NetworkMIDIAddress

    init(bindingTo address: NetworkMIDIAddress) throws(NetworkMIDIError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { throw .socket("socket()", errno: errno) }
        var socketAddress = address.socketAddress
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            throw .socket("bind \(address)", errno: error)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bufferSize: Int32 = 1 << 20  // room for bursts (long SysEx, dense passages)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        localAddress = NetworkMIDIAddress(actual)
    }

    deinit { close(descriptor) }

    /// Sends one datagram; returns false if the kernel refused it (full buffer, unreachable host).
    @discardableResult
    func send(_ bytes: [UInt8], to address: NetworkMIDIAddress) -> Bool {
        var target = address.socketAddress
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return sent == bytes.count
    }

    /// Receives one datagram into `buffer` if one is waiting: its length and sender.
    func receive(into buffer: inout [UInt8]) -> (count: Int, from: NetworkMIDIAddress)? {
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(descriptor, raw.baseAddress, raw.count, 0, $0, &length)
                }
            }
        }
        guard count >= 0 else { return nil }
        return (count, NetworkMIDIAddress(source))
    }
}

/// Waits until one of `sockets` is readable or `timeoutMilliseconds` pass; returns which are readable.
func waitForReadable(_ sockets: [UDPSocket], timeoutMilliseconds: Int32) -> [Bool] {
    var fds = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
    _ = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
    return fds.map { $0.revents & Int16(POLLIN) != 0 }
}
