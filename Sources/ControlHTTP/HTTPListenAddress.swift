import Control
import FlyingSocks
import Foundation

/// Where the HTTP face listens: `--http [ADDR:]PORT`, 127.0.0.1 when no address is given; an IPv6
/// address in brackets (`[::1]:8080`). Port 0 picks a free port (said at start).
public struct HTTPListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The numeric address to bind.
    public var host: String
    public var port: UInt16

    /// Listen on `host`:`port`.
    public init(host: String = "127.0.0.1", port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `[ADDR:]PORT`; nil when it is not one (a name other than `localhost` instead of a numeric
    /// address, a port past 65535).
    public init?(parsing text: String) {
        guard let (given, port) = ControlEndpoint.components(of: text) else { return nil }
        let host = given == "localhost" ? "127.0.0.1" : given ?? "127.0.0.1"
        guard Self.isNumericAddress(host) else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can reach the address (127.0.0.0/8 or ::1).
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    var isIPv6: Bool { host.contains(":") }

    static func isNumericAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
