#if canImport(Glibc)
import Glibc

/// Writes all of `bytes` to the socket `fd` (a write interrupted by a signal is tried again; no SIGPIPE
/// when the peer has gone); false when the socket takes no more (closed, or its send timeout passed).
package func sendAll(_ bytes: ArraySlice<UInt8>, to fd: Int32) -> Bool {
    var rest = bytes
    while !rest.isEmpty {
        let sent = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent < 0, errno == EINTR { continue }
        guard sent > 0 else { return false }
        rest = rest.dropFirst(sent)
    }
    return true
}
#endif
