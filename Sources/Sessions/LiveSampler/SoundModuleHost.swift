import AudioGraph
import AudioFiles
import Control
import Dispatch
import Foundation
import MediaLibrary
import Player
import Sampler
import Synchronization

/// A live sampler session as a sound module you control, as `seqplay live`/`serve` run it: its
/// `SoundModuleControl`, the state file (restored at start, saved on change), the FluidSynth shell and
/// OSC faces, any other face (`ControlHTTPFace`), a recorder the faces start and stop, songs on request
/// (`LiveSongPlayer`) and, if asked, SIGHUP reloading the fonts.
///
///     let session = try LiveSamplerSession(configuration)
///     var module = SoundModuleHostConfiguration()
///     module.shell = ControlEndpoint(parsing: "9800")
///     let host = try SoundModuleHost(session: session, configuration: module, log: { print($0) })
///     try session.start()
///     host.start()          // … play …
///     host.stop(); _ = session.stop()
public final class SoundModuleHost: Sendable {
    public let control: SoundModuleControl
    private let reloadsFontsOnHangUp: Bool
    private let log: @Sendable (String) -> Void
    private let recorder: OnRequestRecorder?
    private let songPlayer: LiveSongPlayer?
    private let stateFile: ControlStateFile?
    private let shell: ShellServer?
    private let osc: OSCFace?
    /// What `add`, `start` and `stop` change: the faces added and the SIGHUP source.
    private let running = Mutex<(faces: [any SoundModuleFace], hangUp: (any DispatchSourceSignal)?)>(([], nil))
    /// The state read from the file, restored once the session plays (each change waits for a render cycle).
    private let savedState: Mutex<ControlState?>

    /// Makes the control over `session` (before it starts), reads the state file and opens the shell
    /// and OSC faces `configuration` asks for; `log` gets the host's lines (faces, state, recordings).
    /// Throws `ControlFaceError` when a face cannot listen.
    public init(session: LiveSamplerSession, configuration: SoundModuleHostConfiguration,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws(ControlFaceError) {
        reloadsFontsOnHangUp = configuration.reloadsFontsOnHangUp
        self.log = log
        control = SoundModuleControl(samplers: session.samplers)
        if case .recording(let path, _) = session.configuration.output {
            control.recordingChanged(RecordingState(path: path, active: true))
            recorder = nil
        } else {
            // Recording on request (a face's record button): a tap on the mix, idle until started.
            let tap = RecorderTap(path: "")
            session.engine.mainMixerNode.installTap(tap, at: .output(bus: 0))
            let recorder = OnRequestRecorder(tap: tap, control: control, log: log)
            control.recorder = recorder
            self.recorder = recorder
        }
        for input in session.configuration.inputs { control.inputConnected(input.name) }
        // Songs on request through the first sampler, beside its live input (before an HTTP face's
        // monitor wraps the source, so the page's meters see the song's notes too).
        if let first = session.samplers.first, let live = first.eventSource {
            let feed = SongFeedSource(base: live)
            first.eventSource = feed
            let player = LiveSongPlayer(feed: feed, sampleRate: session.output.sampleRate, directories: configuration.songDirectories,
                                        libraryPath: configuration.libraryPath, control: control)
            player.log = log
            control.songPlayer = player
            songPlayer = player
        } else {
            songPlayer = nil
        }
        var saved: ControlState?
        if let path = configuration.stateFile {
            let file = ControlStateFile(path: path)
            file.onWriteFailure = log
            switch file.read() {
            case .missing: break
            case .state(let state): saved = state
            case .damaged(let reason, let movedTo):
                log("state \(path) is damaged (\(reason)); "
                    + (movedTo.map { "moved to \($0), starting afresh" } ?? "cannot move it aside, starting afresh"))
            }
            file.follow(control)
            stateFile = file
        } else {
            stateFile = nil
        }
        savedState = Mutex(saved)
        let access = ControlAccess(allowing: configuration.allowedHosts)
        for host in access.unresolved { log("--control-allow \(host): no such host") }
        if let endpoint = configuration.shell {
            let server = try ShellServer(control: control, endpoint: endpoint, access: access)
            server.log = log
            shell = server
        } else {
            shell = nil
        }
        if let endpoint = configuration.osc {
            osc = try OSCFace(control: control, endpoint: endpoint, access: access, log: log)
        } else {
            osc = nil
        }
    }

    /// Adds a face made over `control` (before `start`); the host announces and stops it.
    public func add(_ face: sending any SoundModuleFace) {
        running.withLock { $0.faces.append(face) }
    }

    /// Restores the saved state, starts following the samplers and answering the faces, and says
    /// where each answers; with `reloadsFontsOnHangUp`, SIGHUP reloads the fonts from now on. Call
    /// once the session plays.
    public func start() {
        if let saved = savedState.withLock({ $0.take() }), let path = stateFile?.path {
            for problem in control.restore(saved) { log("state \(path): \(problem)") }
        }
        control.start()
        shell?.start()
        osc?.start()
        if let shell { log("FluidSynth shell on \(shell.endpoint.host):\(shell.port)") }
        if let osc { log("OSC on \(osc.endpoint.host):\(osc.port)") }
        running.withLock { running in
            for face in running.faces { log(face.announcement) }
        }
        guard reloadsFontsOnHangUp else { return }
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { [control, log] in
            do {
                try control.perform(.reloadFonts)
                log("SIGHUP: fonts reloaded (\(control.state.fonts.map(\.path).joined(separator: ", ")))")
            } catch {
                log("SIGHUP: \(error)")
            }
        }
        source.resume()
        running.withLock { $0.hangUp = source }
    }

    /// Before the session stops: a recording completed, the song stopped, the faces closed, notes off,
    /// the state saved.
    public func stop() {
        recorder?.stopRecording()
        songPlayer?.stop()
        running.withLock { $0.hangUp?.cancel() }
        shell?.stop()
        osc?.stop()
        running.withLock { running in
            for face in running.faces { face.stop() }
        }
        control.stop()
        for sampler in control.samplers { sampler.allNotesOff() }
        stateFile?.flush(control.state)
    }
}

extension SoundModuleHost {
    /// The network peers of a session as the control model's inputs ("network peer NAME" connected and
    /// disconnected). Peers may connect as soon as the session opens, before the host (and its control
    /// model) exists: make this over the configuration before the session, then `report(to:)` the host.
    ///
    ///     var configuration = LiveSamplerConfiguration(…)
    ///     let peers = SoundModuleHost.NetworkPeers(reportingIn: &configuration)
    ///     let session = try LiveSamplerSession(configuration)
    ///     let host = try SoundModuleHost(session: session, configuration: module)
    ///     peers.report(to: host)
    public final class NetworkPeers: Sendable {
        private let control = Mutex<SoundModuleControl?>(nil)

        /// Makes `configuration`'s network session (if it has one and reports peer events) also tell the
        /// control model, once `report(to:)` names its host, of peers connecting and leaving.
        public init(reportingIn configuration: inout LiveSamplerConfiguration) {
            guard let reportPeerEvent = configuration.network?.onPeerEvent else { return }
            configuration.network?.onPeerEvent = { [self] event in
                reportPeerEvent(event)
                let current = self.control.withLock { $0 }
                switch event {
                case .connected(let peer): current?.inputConnected("network peer \(peer.displayName)")
                case .ended(let peer, _): current?.inputDisconnected("network peer \(peer.displayName)")
                }
            }
        }

        /// From now on, peers connecting and leaving are inputs of `host`'s control model.
        public func report(to host: SoundModuleHost) {
            control.withLock { $0 = host.control }
        }
    }
}

/// What a `SoundModuleHost` opens beside the control model: the faces, who may use them, the state
/// file, where songs on request may come from, and SIGHUP.
public struct SoundModuleHostConfiguration: Sendable {
    /// The FluidSynth shell's address (`ControlEndpoint(parsing: "9800")`), none when nil.
    public var shell: ControlEndpoint?
    /// The OSC face's address, none when nil.
    public var osc: ControlEndpoint?
    /// Hosts besides loopback that may use the shell and OSC.
    public var allowedHosts: [String] = []
    /// The state file (`ControlStateFile.defaultPath` is the one `serve` uses), none when nil.
    public var stateFile: String?
    /// Directories whose MIDI files the faces may play, besides the media library's songs.
    public var songDirectories: [String] = []
    /// The media library whose songs the faces may play (nil: only `songDirectories`).
    public var libraryPath: String? = MediaLibrary.defaultPath
    /// Whether SIGHUP reloads the fonts (the process's signal: off unless the host is the program's).
    public var reloadsFontsOnHangUp = false

    public init() {}
}

/// Records what a live session plays to a file named by a face (`ControlCommand.startRecording`),
/// through a `RecorderTap` installed on the mix before the session started.
final class OnRequestRecorder: SoundModuleRecorder, Sendable {
    private let tap: RecorderTap
    private weak let control: SoundModuleControl?
    private let log: @Sendable (String) -> Void
    /// The file being recorded to; a start and a stop run under the mutex, one at a time.
    private let path = Mutex<String?>(nil)

    init(tap: RecorderTap, control: SoundModuleControl, log: @escaping @Sendable (String) -> Void) {
        self.tap = tap
        self.control = control
        self.log = log
    }

    func startRecording(path: String) throws {
        try self.path.withLock { (current) throws in
            if let current { throw ControlError.failed("already recording to \(current)") }
            try tap.start(writingTo: path)
            current = path
        }
        control?.recordingChanged(RecordingState(path: path, active: true))
    }

    /// Completes the recording, if one runs.
    func stopRecording() {
        let finished: String? = path.withLock { current in
            guard let path = current else { return nil }
            current = nil
            do {
                let summary = try tap.stop()
                log("wrote \(summary.framesWritten) frames to \(path)")
            } catch {
                log("\(path): \(error)")
            }
            return path
        }
        if let finished { control?.recordingChanged(RecordingState(path: finished, active: false)) }
    }
}
