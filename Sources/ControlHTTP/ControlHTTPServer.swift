import Control
import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// The HTTP face of a sound module (`--http [ADDR:]PORT` on `live` and `serve`): a JSON API over a
/// `SoundModuleControl`, a WebSocket of its change events, levels and notes, and the web page at `/`
/// (built into the binary), served by FlyingFox on its own threads behind an `HTTPRequestGate`, which
/// bounds every request line and header before FlyingFox reads it (414, 431). Listens on 127.0.0.1
/// unless told otherwise; from any other host every request needs the token (`HTTPAccessToken`).
///
///     GET  /api/state                 the ControlState
///     POST /api/channels/N            {"program", "bank", "font", "volume", "pan", "mute"}: any of them
///     GET  /api/fonts                 {"fonts": [...]};  POST /api/fonts {"path"} loads one
///     DELETE /api/fonts/ID            unloads one
///     POST /api/panic, /api/reset
///     POST /api/gain {"gain"}, /api/reverb {"enabled", "roomSize", "damping", "width", "level"},
///          /api/chorus {"enabled", "voices", "level", "speed", "depth"}
///     GET  /api/songs                 the media library's songs;  POST /api/song {"path"}, /api/song/stop
///     POST /api/recording {"name"?}, /api/recording/stop
///     GET  /api/events                the WebSocket
///
/// Errors are `{"error": "..."}` with 400 (bad request), 401 (no token), 403 (another site's page),
/// 404 (no such thing), 405, 413 (body over 64 KiB), 414 (request line over 4 KiB), 415 (not JSON)
/// or 431 (over 100 header lines, 4 KiB a line or 16 KiB in all).
public final class ControlHTTPServer: Sendable {
    /// How the server is set up.
    public struct Configuration: Sendable {
        /// Where it listens: a numeric address (as `ControlEndpoint(parsingNumeric:)` reads one).
        public var address: ControlEndpoint
        /// The token others present (nil: only loopback clients get in).
        public var token: HTTPAccessToken?
        /// The media library the song picker lists (nil: none).
        public var libraryPath: String?
        /// Where recordings started from the page go (`take-DATE.wav` there, or the name given).
        public var recordingDirectory: String?

        /// A server on `address`.
        public init(address: ControlEndpoint, token: HTTPAccessToken? = nil, libraryPath: String? = nil,
                    recordingDirectory: String? = nil) {
            self.address = address
            self.token = token
            self.libraryPath = libraryPath
            self.recordingDirectory = recordingDirectory
        }
    }

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    public let configuration: Configuration
    public let control: SoundModuleControl
    private let api: ControlAPI
    private let events: EventStream
    private let server: HTTPServer
    private let gate: HTTPRequestGate
    /// The server's task while it runs, and the port it listens on once started.
    private let running = Mutex<(task: Task<Void, any Error>?, port: UInt16)>((nil, 0))
    /// The port it listens on once started (the one picked, for port 0).
    public var port: UInt16 { running.withLock { $0.port } }

    /// A server for `control`; `monitor` (installed on the engine) gives the page levels and notes.
    public init(control: SoundModuleControl, monitor: SoundMonitor? = nil, configuration: Configuration) throws(StartError) {
        self.configuration = configuration
        self.control = control
        events = EventStream(control: control, monitor: monitor)
        gate = try HTTPRequestGate(address: configuration.address)
        api = ControlAPI(control: control, events: events, access: HTTPAccess(token: configuration.token, gate: gate),
                         libraryPath: configuration.libraryPath, recordingDirectory: configuration.recordingDirectory)
        server = HTTPServer(config: HTTPServer.Configuration(address: sockaddr_un.unix(path: gate.backendPath), timeout: 15, logger: .disabled),
                            handler: api)
    }

    /// Starts listening (waits until it does, at most 5 s); throws when the address cannot be used.
    public func start() throws(StartError) {
        let outcome = StartOutcome()
        let server = self.server
        let task = Task {
            do {
                try await server.run()
            } catch {
                outcome.finish(.failure(error))
                throw error
            }
        }
        running.withLock { $0.task = task }
        Task {
            do {
                try await server.waitUntilListening(timeout: 5)
                outcome.finish(.success(await server.listeningAddress))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        switch outcome.wait() {
        case .success:
            running.withLock { $0.port = gate.port }
            gate.start()
            events.start()
        case .failure(let error):
            task.cancel()
            gate.stop()
            throw StartError(description: "cannot listen for HTTP on \(configuration.address): \(Self.reason(error))")
        }
    }

    /// Closes every connection at once (WebSocket clients get a close) and stops listening.
    public func stop() {
        events.stop()
        let server = self.server
        let done = DispatchSemaphore(value: 0)
        Task {
            await server.stop(timeout: 0)
            done.signal()
        }
        _ = done.wait(timeout: .now() + 1)
        running.withLock { running in
            running.task?.cancel()
            running.task = nil
        }
        gate.stop()
    }

    /// The page's address on the address bound (`http://0.0.0.0:8080/` when bound to every address).
    public var url: String {
        let host = configuration.address.host
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)/"
    }

    private static func reason(_ error: any Error) -> String {
        if let socketError = error as? SocketError, case .failed(_, let errno, _) = socketError {
            return String(cString: strerror(errno))
        }
        return "\(error)"
    }

    /// The first outcome of starting, handed to the thread waiting for it.
    private final class StartOutcome: Sendable {
        private let ready = DispatchSemaphore(value: 0)
        private let outcome = Mutex<Result<Socket.Address?, any Error>?>(nil)

        func finish(_ result: Result<Socket.Address?, any Error>) {
            let first = outcome.withLock { outcome -> Bool in
                guard outcome == nil else { return false }
                outcome = result
                return true
            }
            if first { ready.signal() }
        }

        func wait() -> Result<Socket.Address?, any Error> {
            ready.wait()
            return outcome.withLock { $0! }
        }
    }
}
