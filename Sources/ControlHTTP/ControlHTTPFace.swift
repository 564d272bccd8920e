import AudioGraph
import Control
import Foundation
import Sampler

/// The HTTP face of a sound module (`serve --http`): a `SoundMonitor` on the engine's output and the
/// samplers' notes (install it before the engine starts), the `ControlHTTPServer` listening, and the
/// token kept in a state directory when others than this host may connect.
public final class ControlHTTPFace: SoundModuleFace {
    /// Why the face could not be made.
    public enum Failure: Error, CustomStringConvertible {
        /// The access token cannot be read or written in `directory`.
        case token(directory: String, reason: String)
        /// The server cannot listen at the address (in use, not a local address).
        case start(ControlHTTPServer.StartError)

        public var description: String {
            switch self {
            case .token(let directory, let reason): return "cannot keep the HTTP token in \(directory): \(reason)"
            case .start(let error): return error.description
            }
        }
    }

    public let server: ControlHTTPServer
    /// The token a request from another host needs (nil on a loopback address).
    public let token: HTTPAccessToken?
    /// Where the token is kept and recordings started from the page go (`recordings/`).
    public let stateDirectory: String

    /// Watches `engine`'s output and `samplers` (not started yet) and serves `control` at `address`:
    /// from a non-loopback address with the token kept in `stateDirectory` (made once);
    /// `libraryPath` is the media library the page lists songs from.
    public init(control: SoundModuleControl, engine: AudioEngine, samplers: [SamplerNode], address: ControlEndpoint,
                stateDirectory: String, libraryPath: String?) throws(Failure) {
        self.stateDirectory = stateDirectory
        if address.isLoopback {
            token = nil
        } else {
            do {
                token = try HTTPAccessToken.loadOrCreate(in: stateDirectory).token
            } catch {
                throw .token(directory: stateDirectory, reason: "\(error)")
            }
        }
        let monitor = SoundMonitor()
        monitor.install(on: engine, samplers: samplers)
        do {
            server = try ControlHTTPServer(control: control, monitor: monitor, configuration: .init(
                address: address, token: token, libraryPath: libraryPath,
                recordingDirectory: (stateDirectory as NSString).appendingPathComponent("recordings")))
            try server.start()
        } catch {
            throw .start(error)
        }
    }

    /// "HTTP control at http://127.0.0.1:8080/" (the address bound), and where the token is kept when
    /// others may connect. Never the whole token: the log is kept (journald).
    public var announcement: String {
        var line = "HTTP control at \(server.url)"
        if let token {
            line += " (from other hosts: http://HOST:\(server.port)/?token=\(token.value.prefix(4))…; token kept in "
                + (stateDirectory as NSString).appendingPathComponent(HTTPAccessToken.fileName) + ")"
        }
        return line
    }

    public func stop() { server.stop() }
}
