import FlyingFox
import Foundation

/// A request the API refuses: its status and the one line of `{"error": "..."}` the client gets.
struct APIError: Error, Sendable {
    var status: HTTPStatusCode
    var message: String

    init(_ status: HTTPStatusCode, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }
    static let unauthorized = APIError(.unauthorized, "a token is needed from another host: Authorization: Bearer TOKEN or ?token=TOKEN")
    static let tooLarge = APIError(.payloadTooLarge, "the request body is larger than \(APIBody.limit) bytes")

    var response: HTTPResponse {
        var response = APIResponse.json(["error": message], status: status)
        if status == .unauthorized { response.headers[HTTPHeader("WWW-Authenticate")] = "Bearer" }
        return response
    }
}

/// The API's answers: JSON, never cached.
enum APIResponse {
    static func json(_ object: Any, status: HTTPStatusCode = .ok) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return data(body, status: status)
    }

    static func encoded(_ value: some Encodable, status: HTTPStatusCode = .ok) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let body = try? encoder.encode(value) else { return APIError(.internalServerError, "the state cannot be written as JSON").response }
        return data(body, status: status)
    }

    static func data(_ body: Data, status: HTTPStatusCode) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"], body: body)
    }
}

/// A request's body, read up to `limit` bytes, as the JSON object every POST takes.
enum APIBody {
    /// The largest body the API reads (a request of a few fields is under 1 KiB).
    static let limit = 64 * 1024

    /// The body's bytes; 413 past `limit` (said by `Content-Length` before anything is read, or found reading).
    static func read(_ request: HTTPRequest) async throws(APIError) -> Data {
        if let length = request.headers[.contentLength], let count = Int(length), count > limit { throw .tooLarge }
        var data = Data()
        do {
            for try await chunk in request.bodySequence {
                data.append(chunk)
                if data.count > limit { throw APIError.tooLarge }
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw .badRequest("the request body could not be read")
        }
        return data
    }

    /// The body as a JSON object (an empty body is `{}`). POSTs must say `Content-Type: application/json`:
    /// a browser then asks before sending one from another site's page, which it never gets leave to do.
    static func object(_ request: HTTPRequest) async throws(APIError) -> JSONFields {
        let data = try await read(request)
        if data.isEmpty { return JSONFields([:]) }
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw APIError(.unsupportedMediaType, "the body must be JSON with Content-Type: application/json")
        }
        let value: JSONValue
        do {
            value = try JSONValue(data: data)
        } catch {
            throw .badRequest("the body is not valid JSON")
        }
        guard case .object(let fields) = value else { throw .badRequest("the body must be a JSON object") }
        return JSONFields(fields)
    }
}

/// The fields of a JSON object a request sent, each read once with its type and range checked; a
/// field nobody read is an error (a typo is not silently ignored).
struct JSONFields {
    private let fields: [String: JSONValue]
    private var read: Set<String> = []

    init(_ fields: [String: JSONValue]) { self.fields = fields }

    var isEmpty: Bool { fields.isEmpty }
    func has(_ name: String) -> Bool { fields[name] != nil }

    /// An integer field in `range`, or nil when absent.
    mutating func int(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        read.insert(name)
        guard let value = fields[name] else { return nil }
        guard case .number(let number) = value, number.isFinite, number == number.rounded(),
              number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw .badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A number field in `range`, or nil when absent.
    mutating func double(_ name: String, in range: ClosedRange<Double>) throws(APIError) -> Double? {
        read.insert(name)
        guard let value = fields[name] else { return nil }
        guard case .number(let number) = value, number.isFinite, range.contains(number) else {
            throw .badRequest("\(name) must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return number
    }

    /// A true/false field, or nil when absent.
    mutating func bool(_ name: String) throws(APIError) -> Bool? {
        read.insert(name)
        guard let value = fields[name] else { return nil }
        guard case .boolean(let flag) = value else { throw .badRequest("\(name) must be true or false") }
        return flag
    }

    /// A string field of at most `maximumLength` characters, or nil when absent.
    mutating func string(_ name: String, maximumLength: Int = 4096) throws(APIError) -> String? {
        read.insert(name)
        guard let value = fields[name] else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.count <= maximumLength, !text.contains("\0") else {
            throw .badRequest("\(name) must be a string of 1 to \(maximumLength) characters")
        }
        return text
    }

    /// Throws for the first field (in name order) no reader asked for.
    func rejectUnknown() throws(APIError) {
        if let unknown = fields.keys.sorted().first(where: { !read.contains($0) }) {
            throw .badRequest("unknown field \(Self.quoted(unknown))")
        }
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// A client's text quoted for an error message, cut to 40 characters.
    static func quoted(_ text: String) -> String {
        let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "\"" + cut.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
