import ArgumentParser
import Control
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

extension ControlArguments {
    /// What the sound module host opens: the faces and who may use them, the state file, songs on
    /// request, SIGHUP reloading the fonts (the command is the program).
    var hostConfiguration: SoundModuleHostConfiguration {
        var configuration = SoundModuleHostConfiguration()
        configuration.shell = shell.flatMap(ControlEndpoint.init(parsing:))
        configuration.osc = osc.flatMap(ControlEndpoint.init(parsing:))
        configuration.allowedHosts = allowedHosts
        configuration.stateFile = stateFile
        configuration.songDirectories = songDirectories
        configuration.libraryPath = MediaLibrary.defaultPath
        configuration.reloadsFontsOnHangUp = true
        return configuration
    }
}
