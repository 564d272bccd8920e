import AudioGraph
import AudioFiles
import Control
import Dispatch
import Foundation
import Sessions
import MediaLibrary
import Player

/// A live session as a sound module you can control: its `SoundModuleControl`, the state file,
/// the faces the flags ask for (FluidSynth shell, OSC), and SIGHUP reloading the fonts.
final class ControlHost: @unchecked Sendable {
    let control: SoundModuleControl

    /// Where inputs that connect before the control exists find it once it does (network peers).
    final class Inputs: @unchecked Sendable {
        private let lock = NSLock()
        private var current: SoundModuleControl?
        var control: SoundModuleControl? {
            get { lock.withLock { current } }
            set { lock.withLock { current = newValue } }
        }
    }
    private var stateFile: ControlStateFile?
    private var shell: ShellServer?
    private var osc: OSCFace?
    private var http: HTTPFace?
    private var hangUp: DispatchSourceSignal?
    /// The state read from the file, restored once the session plays (each change waits for a render cycle).
    private var savedState: ControlState?

    /// Makes the control over `session` (before it starts), restores the state, opens the faces.
    init(session: LiveSamplerSession, arguments: ControlArguments) throws {
        control = SoundModuleControl(samplers: session.samplers)
        if case .recording(let path, _) = session.configuration.output {
            control.recordingChanged(RecordingState(path: path, active: true))
        } else {
            // Recording on request (a face's record button): a tap on the mix, idle until started.
            let tap = RecorderTap(path: "")
            session.engine.mainMixerNode.installTap(tap, at: .output(bus: 0))
            control.recorder = OnRequestRecorder(tap: tap, control: control)
        }
        for input in session.configuration.inputs { control.inputConnected(input.name) }
        // Songs on request through the first sampler, beside its live input (before the HTTP face's
        // monitor wraps the source, so the page's meters see the song's notes too).
        if let first = session.samplers.first, let live = first.eventSource {
            let feed = SongFeedSource(base: live)
            first.eventSource = feed
            control.songPlayer = LiveSongPlayer(feed: feed, sampleRate: session.output.sampleRate,
                                                directories: arguments.songDirectories,
                                                libraryPath: MediaLibrary.defaultPath, control: control)
        }
        if let path = arguments.stateFile {
            let file = ControlStateFile(path: path)
            file.onWriteFailure = { CommandLineOutput.note($0) }
            switch file.read() {
            case .missing: break
            case .state(let saved): savedState = saved
            case .damaged(let reason, let movedTo):
                CommandLineOutput.note("state \(path) is damaged (\(reason)); "
                    + (movedTo.map { "moved to \($0), starting afresh" } ?? "cannot move it aside, starting afresh"))
            }
            file.follow(control)
            stateFile = file
        }
        let access = ControlAccess(allowing: arguments.allowedHosts)
        for host in access.unresolved { CommandLineOutput.note("--control-allow \(host): no such host") }
        do {
            if let shellEndpoint = arguments.shell.flatMap(ControlEndpoint.init(parsing:)) {
                let server = try ShellServer(control: control, endpoint: shellEndpoint, access: access)
                server.log = { CommandLineOutput.note($0) }
                shell = server
            }
            if let oscEndpoint = arguments.osc.flatMap(ControlEndpoint.init(parsing:)) {
                osc = try OSCFace(control: control, endpoint: oscEndpoint, access: access, log: { CommandLineOutput.note($0) })
            }
        } catch {
            throw CommandFailure("\(error)", .networkUnavailable)
        }
        if let address = arguments.httpAddress {
            http = try HTTPFace(session: session, control: control, address: address, stateDirectory: arguments.stateDirectory)
        }
    }

    /// Starts following the samplers and answering the faces; SIGHUP reloads the fonts from now on.
    func start() {
        if let savedState, let path = stateFile?.path {
            for problem in control.restore(savedState) { CommandLineOutput.note("state \(path): \(problem)") }
            self.savedState = nil
        }
        control.start()
        shell?.start()
        osc?.start()
        if let shell { CommandLineOutput.note("FluidSynth shell on \(shell.endpoint.host):\(shell.port)") }
        if let osc { CommandLineOutput.note("OSC on \(osc.endpoint.host):\(osc.port)") }
        http?.announce()
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { [control] in
            do {
                try control.perform(.reloadFonts)
                CommandLineOutput.note("SIGHUP: fonts reloaded (\(control.state.fonts.map(\.path).joined(separator: ", ")))")
            } catch {
                CommandLineOutput.note("SIGHUP: \(error)")
            }
        }
        source.resume()
        hangUp = source
    }

    /// Before the session stops: faces closed, notes off, the state saved.
    func stop() {
        (control.recorder as? OnRequestRecorder)?.finish()
        (control.songPlayer as? LiveSongPlayer)?.stop()
        hangUp?.cancel()
        shell?.stop()
        osc?.stop()
        http?.stop()
        control.stop()
        for sampler in control.samplers { sampler.allNotesOff() }
        stateFile?.flush(control.state)
    }
}

/// Records what a live session plays to a file named by a face (`ControlCommand.startRecording`),
/// through a `RecorderTap` installed on the mix before the session started.
final class OnRequestRecorder: SoundModuleRecorder, @unchecked Sendable {
    private let tap: RecorderTap
    private weak var control: SoundModuleControl?
    private let lock = NSLock()
    private var path: String?

    init(tap: RecorderTap, control: SoundModuleControl) {
        self.tap = tap
        self.control = control
    }

    func startRecording(path: String) throws {
        try lock.withLock {
            if let current = self.path { throw ControlError.failed("already recording to \(current)") }
            try tap.start(writingTo: path)
            self.path = path
        }
        control?.recordingChanged(RecordingState(path: path, active: true))
    }

    func stopRecording() {
        let finished: String? = lock.withLock {
            guard let path else { return nil }
            self.path = nil
            do {
                let summary = try tap.stop()
                CommandLineOutput.note("wrote \(summary.framesWritten) frames to \(path)")
            } catch {
                CommandLineOutput.note("\(path): \(error)")
            }
            return path
        }
        if let finished { control?.recordingChanged(RecordingState(path: finished, active: false)) }
    }

    /// Completes a recording still running (the session ends).
    func finish() { stopRecording() }
}
