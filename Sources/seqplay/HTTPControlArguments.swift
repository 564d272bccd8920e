import ArgumentParser
import Control
import ControlHTTP
import Foundation
import Sessions
import MediaLibrary

extension ControlArguments {
    /// Where `--http` listens, if asked to.
    var httpAddress: ControlEndpoint? { http.flatMap { ControlEndpoint(parsingNumeric: $0) } }

    /// `--http`'s check, called by `validate()`.
    func validateHTTP() throws {
        if let http, ControlEndpoint(parsingNumeric: http) == nil {
            throw ValidationError("--http takes [ADDR:]PORT with a numeric address (or localhost) and a port 0-65535, not '\(http.prefix(64))'.")
        }
    }

    /// The state directory: the state file's (a relative one in the current directory), else
    /// `$XDG_STATE_HOME/seqplay` (`~/.local/state/seqplay`), where the HTTP token is kept.
    var stateDirectory: String {
        if let stateFile { return URL(fileURLWithPath: stateFile).deletingLastPathComponent().path }
        let environment = ProcessInfo.processInfo.environment
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return (stateHome as NSString).appendingPathComponent("seqplay")
    }
}

/// The HTTP face of a `ControlHost` (`--http`): the output's meter and the samplers' notes watched
/// (installed before the session starts), the server listening, and the line saying where.
final class HTTPFace {
    let server: ControlHTTPServer
    let token: HTTPAccessToken?
    let stateDirectory: String

    /// Installs the monitor on `session` (not started yet) and starts the server for `control` at
    /// `address`; from a non-loopback address with the token kept in `stateDirectory` (made once).
    init(session: LiveSamplerSession, control: SoundModuleControl, address: ControlEndpoint, stateDirectory: String) throws {
        self.stateDirectory = stateDirectory
        if address.isLoopback {
            token = nil
        } else {
            do {
                token = try HTTPAccessToken.loadOrCreate(in: stateDirectory).token
            } catch {
                throw CommandFailure("cannot keep the HTTP token in \(stateDirectory): \(error)", .inputOutput)
            }
        }
        let monitor = SoundMonitor()
        monitor.install(on: session.engine, samplers: session.samplers)
        do {
            server = try ControlHTTPServer(control: control, monitor: monitor, configuration: .init(
                address: address, token: token, libraryPath: MediaLibrary.defaultPath,
                recordingDirectory: (stateDirectory as NSString).appendingPathComponent("recordings")))
            try server.start()
        } catch {
            throw CommandFailure(mapping: error)  // its line, exit 8
        }
    }

    /// "HTTP control at http://127.0.0.1:8080/" (the address bound), and where the token is kept when
    /// others may connect (said once, at start). Never the whole token: the log is kept (journald).
    func announce() {
        var line = "HTTP control at \(server.url)"
        if let token {
            line += " (from other hosts: http://HOST:\(server.port)/?token=\(token.value.prefix(4))…; token kept in "
                + (stateDirectory as NSString).appendingPathComponent(HTTPAccessToken.fileName) + ")"
        }
        CommandLineOutput.note(line)
    }

    func stop() { server.stop() }
}
