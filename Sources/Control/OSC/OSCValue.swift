/// One argument of an OSC message, as seqplay reads and sends them.
public enum OSCValue: Equatable, Sendable {
    /// `i`.
    case int32(Int32)
    /// `f`.
    case float(Float)
    /// `d`.
    case double(Double)
    /// `h`.
    case int64(Int64)
    /// `s` or `S`.
    case string(String)
    /// `T` or `F`.
    case bool(Bool)
    /// Any other type tag (`N`, `I`, `b`, `m`, …), kept by its tag only.
    case other(UInt8)

    /// The value as a number, if it is one (`T`/`F` as 1/0).
    public var number: Double? {
        switch self {
        case .int32(let value): return Double(value)
        case .float(let value): return Double(value)
        case .double(let value): return value
        case .int64(let value): return Double(value)
        case .bool(let value): return value ? 1 : 0
        case .string, .other: return nil
        }
    }

    /// Whether the value is a floating-point one (`f`, `d`).
    public var isReal: Bool {
        switch self {
        case .float, .double: return true
        default: return false
        }
    }
}

/// An OSC message: an address pattern and its arguments.
public struct OSCMessage: Equatable, Sendable {
    public var path: String
    public var arguments: [OSCValue]

    public init(_ path: String, _ arguments: [OSCValue] = []) {
        self.path = path; self.arguments = arguments
    }
}

/// Where an OSC message came from, or goes to: a UDP host and port.
public struct OSCAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: String

    public init(host: String, port: String) {
        self.host = host; self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
