import Control
import FlyingSocks
import Foundation

extension ControlEndpoint {
    /// `[ADDR:]PORT` as the HTTP face listens on it (`--http`): 127.0.0.1 when no address is given,
    /// `localhost` read as 127.0.0.1, an IPv6 address in brackets (`[::1]:8080`); nil when it is not
    /// one (a name other than `localhost` instead of a numeric address, a port past 65535).
    public init?(parsingNumeric text: String) {
        guard let (given, port) = Self.components(of: text) else { return nil }
        let host = given == "localhost" ? "127.0.0.1" : given ?? "127.0.0.1"
        guard Self.isNumericAddress(host) else { return nil }
        self.init(host: host, port: port)
    }

    var isIPv6: Bool { host.contains(":") }

    static func isNumericAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
