#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors a network MIDI session reports to its owner (as opposed to bad packets from peers, which
/// are counted and dropped: see `NetworkMIDIPacketError`).
public enum NetworkMIDIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An address given by the user is not HOST:PORT or cannot be resolved.
    case badAddress(String, reason: String)
    /// A socket call failed, e.g. binding a port that is in use.
    case socket(String, errno: Int32)

    public var description: String {
        switch self {
        case .badAddress(let text, let reason): return "bad network address \"\(text)\": \(reason)"
        case .socket(let call, let code): return "\(call) failed: \(Self.explanation(of: code))"
        }
    }

    /// What a socket error number means, in words (strerror's, or the number).
    static func explanation(of code: Int32) -> String {
        if code == EADDRINUSE { return "address already in use (another program, or another seqplay, listens there)" }
        guard code != 0, let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text).lowercased()
    }
}
