import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a control face listens (`[ADDR:]PORT`, 127.0.0.1 unless an address is given): the shell's
/// and OSC's (`--shell`, `--osc`; whom they answer: loopback always, plus the hosts `--control-allow`
/// names), and the HTTP face's (`--http`, read by `init?(parsingNumeric:)`). Port 0 picks a free port.
public struct ControlEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// An IPv4 address or a host name; for the HTTP face a numeric address, IPv4 or IPv6.
    public var host: String
    public var port: UInt16

    public init(host: String = "127.0.0.1", port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `PORT` or `ADDR:PORT` (an IPv4 address or a host name); nil when it is neither.
    public init?(parsing text: String) {
        guard let (host, port) = Self.components(of: text), host?.contains(":") != true else { return nil }
        self.init(host: host ?? "127.0.0.1", port: port)
    }

    /// The one reading of a control face's `[ADDR:]PORT` (`--shell`, `--osc`, `--http`): the address
    /// (nil when only a port is given; an IPv6 address stands in brackets, `[::1]:8080`) and the port
    /// (0-65535); nil when the text is neither.
    package static func components(of text: String) -> (host: String?, port: UInt16)? {
        var host: String?, portText = Substring(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard host?.isEmpty != true, portText.count <= 5, let port = UInt16(portText) else { return nil }
        return (host, port)
    }

    /// `HOST:PORT`, an IPv6 address in brackets (`[::1]:8080`).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether only this machine can reach the address (127.0.0.0/8 or ::1; a host name is not resolved).
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// The IPv4 address of `host` (resolved), in network byte order.
    func resolvedAddress() -> in_addr? {
        ControlAccess.addresses(of: host).first
    }
}

/// Which peers a control face answers: loopback (127.0.0.0/8) always, and the addresses of the
/// hosts named (resolved once, at start).
public struct ControlAccess: Sendable {
    /// The allowed addresses besides loopback, in network byte order.
    public let allowed: Set<UInt32>
    /// Hosts named that did not resolve.
    public let unresolved: [String]

    public init(allowing hosts: [String]) {
        var allowed = Set<UInt32>()
        var unresolved: [String] = []
        for host in hosts {
            let addresses = Self.addresses(of: host)
            if addresses.isEmpty { unresolved.append(host) }
            for address in addresses { allowed.insert(address.s_addr) }
        }
        self.allowed = allowed
        self.unresolved = unresolved
    }

    /// Whether a peer at `address` (network byte order) may use the face.
    public func accepts(_ address: UInt32) -> Bool {
        UInt32(bigEndian: address) >> 24 == 127 || allowed.contains(address)
    }

    /// Whether a peer at the dotted IPv4 address `text` may use the face.
    public func accepts(host text: String) -> Bool {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return false }
        return accepts(address.s_addr)
    }

    static func addresses(of host: String) -> [in_addr] {
        var address = in_addr()
        if inet_pton(AF_INET, host, &address) == 1 { return [address] }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var found: [in_addr] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr {
                socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { found.append($0.pointee.sin_addr) }
            }
            entry = current.pointee.ai_next
        }
        return found
    }
}

/// Why a control face could not start.
public struct ControlFaceError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}
