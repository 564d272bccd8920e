#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SeqplaySupport

/// The secret a client on another host presents to the HTTP control face (`Authorization: Bearer
/// TOKEN` or `?token=TOKEN`): made once from the system's random source and kept in the state
/// directory (`http-token`, readable by its owner only), so a phone's bookmark keeps working after a
/// restart. Clients on the same machine (loopback) need none.
public struct HTTPAccessToken: Sendable, Equatable, CustomStringConvertible {
    /// The token's text: 32 characters of base64url (192 random bits).
    public let value: String

    /// The name of the file it is kept in, in the state directory.
    public static let fileName = "http-token"

    /// A token with this text.
    public init(value: String) { self.value = value }

    /// A new token from the system's random source.
    public static func generate() -> HTTPAccessToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return HTTPAccessToken(value: text)
    }

    /// The token kept in `directory` (made, with the directory, the first time); `created` says it is new.
    /// A kept file that does not hold a usable token is replaced by a new one.
    public static func loadOrCreate(in directory: String) throws -> (token: HTTPAccessToken, created: Bool) {
        let path = (directory as NSString).appendingPathComponent(fileName)
        if let data = FileManager.default.contents(atPath: path) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.count >= 16, text.count <= 256, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                return (HTTPAccessToken(value: text), false)
            }
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // A new file is made owner-only first; the atomic write keeps the permissions of the file it replaces.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            fchmod(descriptor, 0o600)
            close(descriptor)
        }
        let token = generate()
        try OutputFile.write(Data((token.value + "\n").utf8), to: path)
        return (token, true)
    }

    /// Whether `presented` is this token: the same length and bytes, compared in time independent of
    /// where they differ.
    public func matches(_ presented: String) -> Bool {
        let expected = Array(value.utf8), given = Array(presented.utf8)
        var difference = expected.count ^ given.count
        for index in expected.indices {
            difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
        }
        return difference == 0
    }

    /// Never the secret itself: logs and descriptions show that a token exists, not what it is.
    public var description: String { "HTTPAccessToken(…)" }
}
