/// Follows the bytes a client sends on one HTTP/1.1 connection, request after request, as FlyingFox
/// will frame them (request line, header lines to an empty one, a `Content-Length` or chunked body),
/// and stops at the first line past its bound: every line FlyingFox will read has passed a bound
/// first, so a request costs little before the token is looked at (FlyingFox 0.27.1 reads a line in
/// time that grows with the square of its length: the bounds keep that small). Reads each byte once. `take`
/// hands back heads and bodies in separate runs, so a head can be passed on whole or not at all.
struct HTTPRequestCheck {
    /// The longest request line, header line and whole head (request line and headers), and the most header lines.
    static let maximumRequestLine = 4_096
    static let maximumHeaderLine = 4_096
    static let maximumHead = 16_384
    static let maximumHeaderLines = 100
    /// The longest chunk-size line of a chunked body.
    static let maximumChunkLine = 1_024

    /// Why the client's bytes stop here: the answer it gets before the connection closes.
    enum Refusal: Equatable {
        /// 414: the request line is over `maximumRequestLine`.
        case requestLineTooLong
        /// 431: a header line, the head or the number of header lines is over its bound.
        case headersTooLarge
        /// 400: a chunk-size line is over `maximumChunkLine`.
        case chunkLineTooLong

        /// The response: status, reason and the JSON error, closing the connection.
        var response: [UInt8] {
            let (status, reason, message): (Int, String, String) = switch self {
            case .requestLineTooLong: (414, "URI Too Long", "the request line is over \(HTTPRequestCheck.maximumRequestLine) bytes")
            case .headersTooLarge:
                (431, "Request Header Fields Too Large",
                 "the headers are over \(HTTPRequestCheck.maximumHeaderLines) lines, \(HTTPRequestCheck.maximumHeaderLine) bytes a line or \(HTTPRequestCheck.maximumHead) bytes in all")
            case .chunkLineTooLong: (400, "Bad Request", "a chunk-size line is over \(HTTPRequestCheck.maximumChunkLine) bytes")
            }
            let body = "{\"error\":\"\(message)\"}"
            return Array(("HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                          + "Connection: close\r\n\r\n" + body).utf8)
        }
    }

    /// What `take` found in the bytes it was given: a run of them that are all of a request head, or
    /// all of a body.
    struct Step: Equatable {
        /// How many of them it took (the rest are for the next `take`; after a refusal, never).
        var accepted: Int
        /// Whether they are (part of) a request head, which goes to FlyingFox only once it is whole.
        var isHead = false
        /// Whether they end the head.
        var endsHead = false
        var refusal: Refusal?
        /// The head they end is the connection's first request, and asks for an upgrade (WebSocket).
        var upgradeRequested = false
    }

    private enum State: Equatable {
        case requestLine, headers, body(remaining: Int), chunkSize, chunkData(remaining: Int), trailers
    }

    private var state = State.requestLine
    /// The line being read (what is needed of it: a header's or chunk size's text, at most its bound).
    private var line: [UInt8] = []
    private var lineLength = 0
    private var headLength = 0
    private var headerLines = 0
    private var requests = 0
    private var contentLength = 0
    private var chunked = false
    private var upgrade = false

    /// Whether a request head has begun and not ended.
    var isReadingHead: Bool { state == .headers || (state == .requestLine && lineLength > 0) }

    /// Follows `bytes`, the next the client sent, up to the end of a head or of a body.
    mutating func take(_ bytes: ArraySlice<UInt8>) -> Step {
        let head = state == .requestLine || state == .headers
        var index = bytes.startIndex
        func step(refusal: Refusal? = nil, endsHead: Bool = false, upgrade: Bool = false) -> Step {
            Step(accepted: index - bytes.startIndex, isHead: head, endsHead: endsHead, refusal: refusal, upgradeRequested: upgrade)
        }
        while index < bytes.endIndex {
            switch state {
            case .body(let remaining), .chunkData(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                index += count
                if count < remaining {
                    state = state == .body(remaining: remaining) ? .body(remaining: remaining - count) : .chunkData(remaining: remaining - count)
                } else {
                    state = state == .body(remaining: remaining) ? .requestLine : .chunkSize
                }
            case .requestLine, .headers, .chunkSize, .trailers:
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
                lineLength += end - index
                if head { headLength += end - index }
                if let refusal = overBound() { return step(refusal: refusal) }
                if line.count < Self.maximumHeaderLine { line.append(contentsOf: bytes[index..<min(end, index + Self.maximumHeaderLine - line.count)]) }
                index = end
                guard index < bytes.endIndex else { break }
                index += 1
                if let refusal = endLine() { return step(refusal: refusal) }
                if head, state != .headers {
                    defer { upgrade = false }
                    return step(endsHead: true, upgrade: upgrade && requests == 1)
                }
            }
            if !head, state == .requestLine { return step() }
        }
        return step()
    }

    /// The refusal the line read so far earns, if any.
    private func overBound() -> Refusal? {
        switch state {
        case .requestLine: return lineLength > Self.maximumRequestLine ? .requestLineTooLong : nil
        case .headers: return lineLength > Self.maximumHeaderLine || headLength > Self.maximumHead ? .headersTooLarge : nil
        case .trailers: return lineLength > Self.maximumHeaderLine ? .headersTooLarge : nil
        case .chunkSize: return lineLength > Self.maximumChunkLine ? .chunkLineTooLong : nil
        case .body, .chunkData: return nil
        }
    }

    /// A line has ended (its newline read): what follows it.
    private mutating func endLine() -> Refusal? {
        defer {
            line.removeAll(keepingCapacity: true)
            lineLength = 0
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        switch state {
        case .requestLine:
            state = .headers
            headerLines = 0
            contentLength = 0
            chunked = false
            upgrade = false
        case .headers:
            guard !line.isEmpty else {
                requests += 1
                headLength = 0
                state = chunked ? .chunkSize : contentLength > 0 ? .body(remaining: contentLength) : .requestLine
                return nil
            }
            headerLines += 1
            guard headerLines <= Self.maximumHeaderLines else { return .headersTooLarge }
            header(line)
        case .chunkSize:
            let text = String(decoding: line, as: UTF8.self)
            let size = Int(text.split(separator: ";", maxSplits: 1).first.map(String.init) ?? text, radix: 16) ?? -1
            // A size FlyingFox cannot read ends the connection there; what follows is read as a new request.
            state = size == 0 ? .trailers : size > 0 ? .chunkData(remaining: size + 2) : .requestLine
        case .trailers:
            if line.isEmpty {
                headLength = 0
                state = .requestLine
            } else {
                headerLines += 1
                guard headerLines <= Self.maximumHeaderLines else { return .headersTooLarge }
            }
        case .body, .chunkData:
            break
        }
        return nil
    }

    /// Notes what a header line says about the body and an upgrade (the last of a name wins, as in FlyingFox).
    private mutating func header(_ line: [UInt8]) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).trimmingWhitespace.lowercased()
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace
        switch name {
        case "content-length": contentLength = Int(value).map { max($0, 0) } ?? 0
        case "transfer-encoding":
            chunked = value.split(separator: ",").last.map { $0.trimmingWhitespace.lowercased() } == "chunked"
        case "upgrade": upgrade = !value.isEmpty
        default: break
        }
    }
}

private extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
