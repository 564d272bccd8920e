import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on 127.0.0.1: writes lines, reads what comes back until the server is quiet for
/// a moment (`quiet` seconds, 0.3 unless given).
public final class LineClient {
    public let fd: Int32

    /// Nothing listened on the port for the whole timeout.
    public struct NotListening: Error, CustomStringConvertible {
        public let port: UInt16
        public let seconds: Double
        public var description: String { "nothing listens on 127.0.0.1:\(port) after \(seconds) s" }
    }

    /// Connects to `port`, trying again for up to `timeout` seconds while nothing listens there (a debug
    /// build of `serve` on a loaded host takes several seconds to load its font and open its faces).
    public init(port: UInt16, timeout: Double = 60, quiet: Double = 0.3) throws {
        let end = Date().addingTimeInterval(timeout)
        while true {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if result == 0 {
                self.fd = fd
                var interval = timeval(tv_sec: Int(quiet), tv_usec: Int(quiet * 1_000_000) % 1_000_000)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
                return
            }
            close(fd)
            guard Date() < end else { throw NotListening(port: port, seconds: timeout) }
            usleep(50_000)
        }
    }

    deinit { close(fd) }

    public func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// Reads until nothing more comes for `quiet` seconds; with `until`, until the marker is in the
    /// text, waiting up to `patience` seconds for it (a loaded host may answer late).
    public func read(until marker: String? = nil, patience: Double = 20) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let end = Date().addingTimeInterval(patience)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK, marker != nil, Date() < end { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
            if let marker, String(decoding: data, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: data, as: UTF8.self)
    }

    public func ask(_ line: String, until marker: String? = nil) -> String {
        send(line + "\n")
        return read(until: marker)
    }
}

/// A port on 127.0.0.1 free at the moment (the system's choice), for a server a test starts: TCP, or `type`.
public func freePort(_ type: Int32 = Int32(SOCK_STREAM.rawValue)) -> UInt16 {
    let fd = socket(AF_INET, type, 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length); return getsockname(fd, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
}
