import CLiblo
import Foundation
import SeqplaySupport

/// The thin liblo wrapper: an OSC server on a UDP port that hands every well-formed message to a
/// Swift handler with its sender, and sends messages from the same port (so replies reach the
/// sender as its own port). liblo decodes the packets; a malformed one never reaches the handler
/// and is reported to `OSCServer.log` in one line. Nothing above this type sees a C pointer.
// Why unchecked: liblo's server is read by the receiving thread only and sent on under `sendLock`; `handler` is set before that thread starts.
public final class OSCServer: @unchecked Sendable {
    /// The port bound (the one asked for, or the system's choice for 0).
    public let port: UInt16
    private let server: UnsafeMutableRawPointer
    private let sendLock = NSLock()
    private let receiving = ServiceThread()
    private var handler: ((OSCMessage, OSCAddress) -> Void)?

    /// Where liblo's complaints (malformed packets, socket errors) go, one line each.
    nonisolated(unsafe) public static var log: (@Sendable (String) -> Void)?

    /// Binds UDP `port` on `host` (an IPv4 address; nil or 0.0.0.0: every interface).
    public init(host: String?, port: UInt16) throws(OSCError) {
        let errorHandler: lo_err_handler = { number, message, location in
            let text = message.map { String(cString: $0) } ?? "error \(number)"
            let place = location.map { " (\(String(cString: $0)))" } ?? ""
            OSCServer.log?("OSC: \(text)\(place)")
        }
        let made: lo_server? = if let host, host != "0.0.0.0" {
            lo_server_new_multicast_iface(nil, "\(port)", nil, host, errorHandler)
        } else {
            lo_server_new_with_proto("\(port)", LO_UDP, errorHandler)
        }
        guard let made else { throw OSCError("cannot listen for OSC on \(host ?? "*"):\(port)") }
        server = made
        self.port = Self.boundPort(made)
        lo_server_add_method(server, nil, nil, { path, types, argv, argc, message, context in
            guard let context, let path, let message else { return 1 }
            let owner = Unmanaged<OSCServer>.fromOpaque(context).takeUnretainedValue()
            owner.dispatch(path: path, types: types, argv: argv, argc: Int(argc), message: message)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The port `server` is bound to: liblo's own says 0 when port 0 was asked for, so the socket is asked.
    private static func boundPort(_ server: lo_server) -> UInt16 {
        let known = lo_server_get_port(server)
        if known > 0 { return UInt16(clamping: known) }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(lo_server_get_socket_fd(server), $0, &length) }
        }
        guard result == 0 else { return 0 }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &address) { UInt16(bigEndian: $0.load(as: sockaddr_in.self).sin_port) }
        case AF_INET6:
            return withUnsafeBytes(of: &address) { UInt16(bigEndian: $0.load(as: sockaddr_in6.self).sin6_port) }
        default:
            return 0
        }
    }

    deinit {
        stop()
        lo_server_free(server)
    }

    /// Receives on a thread of its own, calling `handler` there for each message, until `stop()`.
    public func start(_ handler: @escaping (OSCMessage, OSCAddress) -> Void) {
        receiving.start(name: "seqplay osc", prepare: { self.handler = handler }) { [self] in
            while receiving.isRunning { lo_server_recv_noblock(server, 50) }
        }
    }

    /// Stops receiving (waits for the receiving thread).
    public func stop() {
        receiving.stop()
    }

    /// liblo's arguments as values: `count` type tags and their arguments (an unknown tag, or a missing
    /// argument, as `.other(tag)`).
    private static func values(types: UnsafePointer<CChar>?, argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?,
                               count: Int) -> [OSCValue] {
        guard let types, let argv else { return [] }
        return (0..<count).map { index in
            let tag = UInt8(bitPattern: types[index])
            // `T` and `F` carry no bytes: liblo gives them no argument pointer.
            if tag == UInt8(ascii: "T") || tag == UInt8(ascii: "F") { return .bool(tag == UInt8(ascii: "T")) }
            guard let argument = argv[index] else { return .other(tag) }
            switch tag {
            case UInt8(ascii: "i"): return .int32(seqplay_lo_int32(argument))
            case UInt8(ascii: "f"): return .float(seqplay_lo_float(argument))
            case UInt8(ascii: "d"): return .double(seqplay_lo_double(argument))
            case UInt8(ascii: "h"): return .int64(seqplay_lo_int64(argument))
            case UInt8(ascii: "s"), UInt8(ascii: "S"): return .string(String(cString: seqplay_lo_string(argument)))
            default: return .other(tag)
            }
        }
    }

    private func dispatch(path: UnsafePointer<CChar>, types: UnsafePointer<CChar>?, argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?,
                          argc: Int, message: lo_message) {
        let arguments = Self.values(types: types, argv: argv, count: argc)
        var sender = OSCAddress(host: "", port: "")
        if let source = lo_message_get_source(message) {
            sender.host = lo_address_get_hostname(source).map { String(cString: $0) } ?? ""
            sender.port = lo_address_get_port(source).map { String(cString: $0) } ?? ""
        }
        handler?(OSCMessage(String(cString: path), arguments), sender)
    }

    /// Sends `message` to `address` from the server's port. Returns whether it was sent.
    @discardableResult
    public func send(_ message: OSCMessage, to address: OSCAddress) -> Bool {
        guard let target = lo_address_new(address.host, address.port) else { return false }
        defer { lo_address_free(target) }
        guard let built = Self.build(message) else { return false }
        defer { lo_message_free(built) }
        return sendLock.withLock { lo_send_message_from(target, server, message.path, built) } >= 0
    }

    private static func build(_ message: OSCMessage) -> lo_message? {
        guard let built = lo_message_new() else { return nil }
        for argument in message.arguments {
            switch argument {
            case .int32(let value): lo_message_add_int32(built, value)
            case .float(let value): lo_message_add_float(built, value)
            case .double(let value): lo_message_add_double(built, value)
            case .int64(let value): lo_message_add_int64(built, value)
            case .string(let value): lo_message_add_string(built, value)
            case .bool(let value): if value { lo_message_add_true(built) } else { lo_message_add_false(built) }
            case .other: lo_message_add_nil(built)
            }
        }
        return built
    }

    /// Decodes one OSC message packet as liblo does (nil: malformed); for tests and the fuzz target.
    public static func decode(_ bytes: [UInt8]) -> OSCMessage? {
        guard bytes.count >= 4 else { return nil }
        var result: Int32 = 0
        return bytes.withUnsafeBytes { raw -> OSCMessage? in
            guard let decoded = lo_message_deserialise(UnsafeMutableRawPointer(mutating: raw.baseAddress), raw.count, &result) else {
                return nil
            }
            defer { lo_message_free(decoded) }
            guard let path = lo_get_path(UnsafeMutableRawPointer(mutating: raw.baseAddress), raw.count) else { return nil }
            let arguments = Self.values(types: lo_message_get_types(decoded), argv: lo_message_get_argv(decoded),
                                        count: Int(lo_message_get_argc(decoded)))
            return OSCMessage(String(cString: path), arguments)
        }
    }
}

/// Why an OSC server could not start.
public struct OSCError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}
