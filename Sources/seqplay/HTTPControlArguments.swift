import ArgumentParser
import Control
import ControlHTTP
import Foundation
import MediaLibrary

/// `--http [ADDR:]PORT` of `live` and `serve`: the sound module's JSON API, its WebSocket and the web
/// page, on 127.0.0.1 unless an address is given; from another address every request needs the
/// token kept in the state directory (printed at start).
struct HTTPControlArguments: ParsableArguments {
    @Option(name: .customLong("http"), help: ArgumentHelp(
        "Serve the control API and web page at [ADDR:]PORT (127.0.0.1 unless ADDR is given; port 0 picks one). From another address requests need the token printed at start.",
        valueName: "[addr:]port"))
    var http: String?

    func validate() throws {
        if let http, HTTPListenAddress(parsing: http) == nil {
            throw ValidationError("--http takes [ADDR:]PORT with a numeric address and a port 0-65535 (got '\(http)')")
        }
    }

    /// Where to listen, if asked to.
    var address: HTTPListenAddress? { http.flatMap { HTTPListenAddress(parsing: $0) } }

    /// The state directory: `$XDG_STATE_HOME/seqplay` (`~/.local/state/seqplay`).
    static var stateDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return (stateHome as NSString).appendingPathComponent("seqplay")
    }

    /// Starts the server for `control` (with `monitor`'s levels and notes) and says where it is on
    /// standard error, with the token when others may connect.
    func startServer(control: SoundModuleControl, monitor: SoundMonitor?,
                     stateDirectory: String = HTTPControlArguments.stateDirectory) throws -> ControlHTTPServer? {
        guard let address else { return nil }
        var token: HTTPAccessToken?
        if !address.isLoopback {
            do {
                token = try HTTPAccessToken.loadOrCreate(in: stateDirectory).token
            } catch {
                throw CommandFailure("cannot keep the HTTP token in \(stateDirectory): \(error)", .inputOutput)
            }
        }
        let server = try ControlHTTPServer(control: control, monitor: monitor, configuration: .init(
            address: address, token: token, libraryPath: MediaLibrary.defaultPath,
            recordingDirectory: (stateDirectory as NSString).appendingPathComponent("recordings")))
        try server.start()
        var line = "HTTP control at \(server.url)"
        if let token {
            line += " (from other hosts: http://HOST:\(server.port)/?token=\(token.value); token kept in "
                + (stateDirectory as NSString).appendingPathComponent(HTTPAccessToken.fileName) + ")"
        }
        CommandLineOutput.writeStandardError(Data((line + "\n").utf8))
        return server
    }
}
