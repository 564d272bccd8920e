import FlyingFox
import Foundation

/// Who may use the HTTP face: a client on this machine (a loopback peer whose request names this
/// machine in `Host`) without more; anyone else only with the token. The `Host` check keeps a web
/// page elsewhere from reaching the face through the user's own browser by a DNS name it rebinds to
/// 127.0.0.1; the token is taken from `Authorization: Bearer` or the query's `token`.
struct HTTPAccess: Sendable {
    /// The token others present (nil: none is kept, so only loopback clients get in).
    var token: HTTPAccessToken?
    /// The gate FlyingFox's connections come through, which knows each one's client.
    var gate: HTTPRequestGate?

    /// Whether `request` may go on.
    func allows(_ request: HTTPRequest) -> Bool {
        let peer = gate?.peer(of: request.remoteAddress) ?? request.remoteAddress
        if Self.isLoopback(peer), Self.namesThisMachine(request.headers[.host]) { return true }
        guard let token, let presented = Self.presentedToken(request) else { return false }
        return token.matches(presented)
    }

    /// The token a request carries, from `Authorization: Bearer` or else `?token=`.
    static func presentedToken(_ request: HTTPRequest) -> String? {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return request.query.first { $0.name == "token" }?.value
    }

    /// A peer on this machine's loopback interface (127.0.0.0/8, ::1, or 127.x mapped into IPv6). The
    /// socket's own peer address only: never a forwarding header, which the client writes.
    static func isLoopback(_ address: HTTPRequest.Address?) -> Bool {
        switch address {
        case .ip4(let ip, port: _): return ip.hasPrefix("127.")
        case .ip6(let ip, port: _):
            let lowered = ip.lowercased()
            return lowered == "::1" || lowered.hasPrefix("::ffff:127.")
        case .unix, .none: return false
        }
    }

    /// Whether a `Host` header names this machine by a loopback name: `localhost`, 127.x.y.z or ::1
    /// (with or without a port). A request without `Host` comes from no browser and passes.
    static func namesThisMachine(_ host: String?) -> Bool {
        guard let host = host?.trimmingCharacters(in: .whitespaces).lowercased() else { return true }
        let name: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        if name == "localhost" || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
