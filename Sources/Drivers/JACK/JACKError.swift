/// Why a JACK call failed.
public enum JACKError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No JACK server is running under `server` (nil: the default server).
    case noServer(server: String?)
    /// The server refused or failed the client (`status` is libjack's JackStatus bits).
    case openFailed(server: String?, status: UInt32)
    /// A port could not be registered (name taken, or the server is out of ports).
    case portRegistrationFailed(name: String)
    /// `call` returned the error code `code` (often an errno value).
    case callFailed(call: String, code: Int32)
    /// Connecting or disconnecting two ports failed: no such port, wrong direction or types.
    case connectionFailed(source: String, destination: String, code: Int32)
    /// Another client is timebase master and `conditional` was asked.
    case timebaseMasterTaken

    public var description: String {
        switch self {
        case .noServer(let server):
            return "no JACK server \(Self.serverLabel(server)) is running"
        case .openFailed(let server, let status):
            return "the JACK server \(Self.serverLabel(server)) refused the client (status 0x\(String(status, radix: 16)))"
        case .portRegistrationFailed(let name):
            return "cannot register JACK port '\(name)'"
        case .callFailed(let call, let code):
            return "\(call) failed (\(code))"
        case .connectionFailed(let source, let destination, let code):
            return "cannot connect JACK port '\(source)' to '\(destination)' (\(code))"
        case .timebaseMasterTaken:
            return "another JACK client is already the timebase master"
        }
    }

    private static func serverLabel(_ server: String?) -> String {
        "'\(server ?? "default")'"
    }
}
