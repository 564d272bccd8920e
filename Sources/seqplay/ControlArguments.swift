import ArgumentParser
import Control
import Foundation

/// The flags of the control faces of `live` and `serve`: the FluidSynth shell over TCP, OSC over
/// UDP, who else may use them, and the state file.
struct ControlArguments: ParsableArguments {
    @Option(name: .customLong("shell"), help: ArgumentHelp("Answer FluidSynth's shell protocol over TCP (as fluidsynth -s; FluidSynth uses port 9800). Default address 127.0.0.1.", valueName: "[addr:]port"))
    var shell: String?

    @Option(name: .customLong("osc"), help: ArgumentHelp("Take OSC messages over UDP (/seqplay/...; see Docs/sound-module.md). Default address 127.0.0.1.", valueName: "[addr:]port"))
    var osc: String?

    @Option(name: .customLong("http"), help: ArgumentHelp("Serve the JSON API, its WebSocket and the web page (Docs/web-control.md). Default address 127.0.0.1; from another address requests need the token printed at start. Port 0 picks one.", valueName: "[addr:]port"))
    var http: String?

    @Option(name: .customLong("control-allow"), help: ArgumentHelp("Let this host use the shell and OSC faces besides loopback (repeat for several).", valueName: "host"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("song-dir"), help: ArgumentHelp("Let the faces play the MIDI files in this directory (and below) besides the media library's songs (repeat for several).", valueName: "dir"))
    var songDirectories: [String] = []

    @Option(name: .customLong("state"), help: ArgumentHelp("Keep the sound module's state (programs, volumes, mutes, gain, effects, fonts) in this file: restored at start, saved on change. Default with a control face: $XDG_STATE_HOME/seqplay/state.json (else ~/.local/state/seqplay/state.json).", valueName: "file"))
    var state: String?

    @Flag(name: .customLong("no-state"), help: "Neither restore nor save the state.")
    var noState = false

    func validate() throws {
        for (flag, value) in [("--shell", shell), ("--osc", osc)] {
            guard let value else { continue }
            guard ControlEndpoint(parsing: value) != nil else {
                throw ValidationError("\(flag) takes [ADDR:]PORT (port 0-65535), not '\(value.prefix(64))'.")
            }
        }
        try validateHTTP()
        for directory in songDirectories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--song-dir takes a directory, and '\(directory.prefix(200))' is none.")
            }
        }
        if state != nil && noState { throw ValidationError("--state and --no-state cannot be used together.") }
        if let state, state.isEmpty { throw ValidationError("--state needs a file name.") }
    }

    /// Whether any face is asked for.
    var hasFace: Bool { shell != nil || osc != nil || http != nil }

    /// The state file: `--state`, or the default one when a face is on; nil with `--no-state` or neither.
    var stateFile: String? {
        if noState { return nil }
        if let state { return state }
        return hasFace ? ControlStateFile.defaultPath : nil
    }

    /// Whether the sound module's control model runs at all.
    var isActive: Bool { hasFace || stateFile != nil }
}
