import Foundation
import Sampler
import MIDICore
import SoundFontFile
import SeqplaySupport
import Synchronization

/// The one control model of a running sound module (`seqplay live`/`serve`): it owns the host's
/// state (fonts loaded, per-channel program, bank, font, volume, pan and mute, master gain, reverb
/// and chorus, inputs connected, the song and the recording), takes typed commands (`perform`),
/// and tells subscribers what changed (`subscribe`). Every face (the FluidSynth shell, OSC, HTTP)
/// is a thin adapter over it.
///
/// Commands reach the samplers only through their lock-free control path: programs, controllers,
/// notes, mutes, gain and effects are queued for the render thread (`SamplerNode.enqueue`,
/// `setMuted`, `gain`…); loading a font takes the synthesizer between two render cycles, as
/// loading always does. What the samplers really play (a keyboard's program changes and
/// controllers too) comes back through each sampler's `channelStatus`, which the render thread
/// publishes and a thread of the control's polls every 10 ms (`start()`).
///
/// Channel commands go to every sampler of the host; notes to the first. Thread-safe: commands
/// from any thread are serialised among themselves; the state is read under a lock of its own that
/// is never held across file I/O or a wait for the render thread, so a slow command never stalls a
/// reader. Events are delivered in order on a queue of the control's.
public final class SoundModuleControl: Sendable {
    /// The samplers the control drives (a live session's: one per port, the network's, JACK's).
    public let samplers: [SamplerNode]
    /// Where `playSong`/`stopSong` go (nil: refused as unsupported).
    public var songPlayer: (any SoundModuleSongPlayer)? {
        get { model.withLock { $0.songPlayer } }
        set { model.withLock { $0.songPlayer = newValue } }
    }
    /// Where `startRecording`/`stopRecording` go (nil: refused as unsupported).
    public var recorder: (any SoundModuleRecorder)? {
        get { model.withLock { $0.recorder } }
        set { model.withLock { $0.recorder = newValue } }
    }

    /// The state and what it is made from; held only for moments.
    let model: Mutex<ControlModel>
    /// Serialises commands on the samplers (their control calls come from one thread at a time).
    let commandLock = NSRecursiveLock()
    /// Who is told of changes, by subscription, and the last subscription made.
    private let subscribers = Mutex<(handlers: [Int: @Sendable (ControlEvent) -> Void], last: Int)>(([:], 0))
    private let delivery = DispatchQueue(label: "seqplay.control.events")

    /// The thread that follows the samplers (`start()`).
    let following = ServiceThread()

    /// A control over `samplers` (at least one), reading their fonts, programs and settings as they are now.
    public init(samplers: [SamplerNode]) {
        precondition(!samplers.isEmpty, "a sound module has at least one sampler")
        self.samplers = samplers
        for sampler in samplers { sampler.refreshChannelStatus() }
        let settings = samplers[0].settings
        var model = ControlModel(
            current: ControlState(
                gain: Double(settings.gain),
                reverb: SamplerSettings.Reverb.defaults.updated(with: settings.reverb),
                chorus: SamplerSettings.Chorus.defaults.updated(with: settings.chorus)),
            seen: samplers.map { sampler in (0..<16).map { sampler.channelStatus[$0] } },
            seenGenerations: samplers.map { $0.channelStatus.generation })
        for font in samplers[0].soundFonts { model.presetNames[font.path] = Self.describeFont(at: font.path) }
        _ = model.refreshFonts(of: samplers[0].soundFonts)
        for channel in 0..<16 {
            model.current.channels[channel] = model.channelState(channel, from: model.seen[0][channel], mute: false)
        }
        self.model = Mutex(model)
    }

    deinit { following.requestStop() }  // not joined: the last reference may go on the thread itself

    // MARK: State

    /// The state now (commands `performWithoutWaiting` queued may not show yet: `settle()` first).
    public var state: ControlState { model.withLock { $0.current } }

    /// The font at `path` as the state shows it (id 0 until loaded): its name and presets, read from
    /// the file (file I/O: never under the `model` lock).
    static func describeFont(at path: String) -> FontState {
        let contents = try? SoundFontContents(path: path)
        let font = SoundFontID(id: 0, path: path)
        let presets = (contents?.presets ?? []).map { Preset(bank: $0.bank, program: $0.program, name: $0.name, soundFont: font) }
            .sorted { ($0.bank, $0.program) < ($1.bank, $1.program) }
        let name = contents?.name.flatMap { $0.isEmpty ? nil : $0 } ?? (path as NSString).lastPathComponent
        return FontState(id: 0, path: path, name: name, presets: presets)
    }


    // MARK: Events

    /// Calls `handler` with every change from now on, in order, on a queue of the control's (never
    /// the render thread). Keep the returned subscription; `cancel()` it to stop.
    public func subscribe(_ handler: @escaping @Sendable (ControlEvent) -> Void) -> ControlSubscription {
        let id = subscribers.withLock { subscribers in
            subscribers.last += 1
            subscribers.handlers[subscribers.last] = handler
            return subscribers.last
        }
        return ControlSubscription(control: self, id: id)
    }

    func unsubscribe(_ id: Int) {
        subscribers.withLock { _ = $0.handlers.removeValue(forKey: id) }
    }

    func emit(_ events: [ControlEvent]) {
        guard !events.isEmpty else { return }
        let handlers = subscribers.withLock { subscribers in subscribers.handlers.sorted { $0.key < $1.key }.map(\.value) }
        guard !handlers.isEmpty else { return }
        delivery.async {
            for event in events { for handler in handlers { handler(event) } }
        }
    }

    // MARK: The host's own changes

    /// The host connected an input (a keyboard, a network peer).
    public func inputConnected(_ name: String) {
        model.withLock { model in
            guard !model.current.inputs.contains(InputState(name: name)) else { return }
            model.current.inputs.append(InputState(name: name))
            emit([.inputs(model.current.inputs)])
        }
    }

    /// The host lost an input.
    public func inputDisconnected(_ name: String) {
        model.withLock { model in
            guard model.current.inputs.contains(InputState(name: name)) else { return }
            model.current.inputs.removeAll { $0.name == name }
            emit([.inputs(model.current.inputs)])
        }
    }

    /// The host's recording (nil: none).
    public func recordingChanged(_ recording: RecordingState?) {
        hostChanged(\.recording, to: recording) { .recording($0.recording) }
    }

    /// The host's song (nil: none).
    public func songChanged(_ song: SongState?) {
        hostChanged(\.song, to: song) { .song($0.song) }
    }

    /// Keeps what the host says at `keyPath` of the state, and tells subscribers when that changed it.
    private func hostChanged<Value: Equatable & Sendable>(_ keyPath: WritableKeyPath<ControlState, Value>, to value: Value,
                                                          event: (ControlState) -> ControlEvent) {
        model.withLock { model in
            var events: [ControlEvent] = []
            model.keep(value, at: keyPath, event: event, in: &events)
            emit(events)
        }
    }

    // MARK: Commands

    /// Does `command` (from any thread): validates it, queues it for the samplers' render threads,
    /// and returns once the state shows it (or after 1 s if nothing renders). Throws the one line
    /// a face answers with when the command is refused; nothing changes then.
    public func perform(_ command: ControlCommand) throws(ControlError) {
        try performWithoutWaiting(command)
        settle()
    }

    /// Does `command` as `perform` does, but returns once it is queued, without waiting for the render
    /// thread to play it: a program change or a volume shows in `state` after the next `settle()` (or
    /// the next poll). For a stream of commands, such as a script's lines to the shell.
    public func performWithoutWaiting(_ command: ControlCommand) throws(ControlError) {
        switch command {
        case .loadFont(let path):
            _ = try loadFont(at: path)
            return
        case .playSong(let path):
            // The player reads the file: no lock of the control's is held meanwhile.
            let player = try availableSongPlayer
            do { try player.play(path: path) } catch { throw .failed("\(error)") }
            return
        case .stopSong:
            try availableSongPlayer.stop()
            return
        case .startRecording(let path):
            let recorder = try availableRecorder
            do { try recorder.startRecording(path: path) } catch { throw .failed("\(error)") }
            return
        case .stopRecording:
            try availableRecorder.stopRecording()
            return
        case .reloadFonts:
            try reloadFonts(samplers[0].soundFonts.map(\.id))
            return
        default:
            break
        }
        commandLock.lock()
        defer { commandLock.unlock() }
        let cycles = samplers.map { $0.channelStatus.completedCycles }
        var events: [ControlEvent] = []
        switch command {
        case .program(let channel, let program, let bank):
            let c = try Self.channelIndex(channel)
            let p = try Self.checked(program, "program", 0...127)
            if let bank {
                let b = try Self.checked(bank, "bank", 0...16383)
                for sampler in samplers {
                    do {
                        try sampler.selectProgram(UInt8(p), bank: b, channel: c)
                    } catch {
                        throw .noSuchPreset(bank: b, program: p)
                    }
                }
            } else {
                for sampler in samplers { sampler.enqueue(.programChange(channel: c, program: UInt8(p))) }
            }
            awaitRender(after: cycles)
        case .select(let channel, let font, let bank, let program):
            let c = try Self.channelIndex(channel)
            let p = try Self.checked(program, "program", 0...127)
            let b = try Self.checked(bank, "bank", 0...16383)
            guard let index = samplers[0].soundFonts.firstIndex(where: { $0.id == font }) else { throw .noSuchFont(font) }
            for sampler in samplers where index < sampler.soundFonts.count {
                do {
                    try sampler.selectProgram(UInt8(p), bank: b, channel: c, font: sampler.soundFonts[index].id)
                } catch {
                    throw .noSuchPreset(bank: b, program: p)
                }
            }
            awaitRender(after: cycles)
        case .volume(let channel, let value):
            try controlChange(channel, 7, value, "volume")
            awaitRender(after: cycles)
        case .pan(let channel, let value):
            try controlChange(channel, 10, value, "pan")
            awaitRender(after: cycles)
        case .controlChange(let channel, let controller, let value):
            let cc = try Self.checked(controller, "controller", 0...127)
            try controlChange(channel, UInt8(cc), value, "value")
            if cc == 7 || cc == 10 || cc == 0 || cc == 32 || cc == 121 { awaitRender(after: cycles) }
        case .mute(let channel, let muted):
            let c = try Self.channelIndex(channel)
            set(\.channels[Int(c)].mute, to: muted, event: { .channel($0.channels[Int(c)]) }) {
                $0.setMuted(muted, channel: c)
            }
        case .noteOn(let channel, let key, let velocity):
            let c = try Self.channelIndex(channel)
            let k = try Self.checked(key, "key", 0...127), v = try Self.checked(velocity, "velocity", 0...127)
            samplers[0].enqueue(.noteOn(channel: c, note: UInt8(k), velocity: UInt8(v)))
            events.append(.note(channel: channel, key: k, velocity: v))
        case .noteOff(let channel, let key):
            let c = try Self.channelIndex(channel)
            let k = try Self.checked(key, "key", 0...127)
            samplers[0].enqueue(.noteOff(channel: c, note: UInt8(k), velocity: 0))
            events.append(.note(channel: channel, key: k, velocity: 0))
        case .pitchBend(let channel, let value):
            let c = try Self.channelIndex(channel)
            let v = try Self.checked(value, "pitch bend", 0...16383)
            for sampler in samplers { sampler.enqueue(.pitchBend(channel: c, value: UInt16(v))) }
        case .gain(let gain):
            guard gain.isFinite, (0...10).contains(gain) else { throw .outOfRange(name: "gain", value: "\(gain)", range: "0-10") }
            set(\.gain, to: gain, event: { .gain($0.gain) }) { $0.gain = Float(gain) }
        case .reverb(let change):
            let reverb = try Self.applied(change, to: state.reverb)
            set(\.reverb, to: reverb, event: { .reverb($0.reverb) }) { sampler in
                if let enabled = change.isEnabled { sampler.reverbEnabled = enabled }
                sampler.setReverb(roomSize: change.roomSize, damping: change.damping, width: change.width, level: change.level)
            }
        case .chorus(let change):
            let chorus = try Self.applied(change, to: state.chorus)
            set(\.chorus, to: chorus, event: { .chorus($0.chorus) }) { sampler in
                if let enabled = change.isEnabled { sampler.chorusEnabled = enabled }
                sampler.setChorus(voices: change.voices, level: change.level, speed: change.speed, depth: change.depth)
            }
        case .unloadFont(let id):
            guard let index = samplers[0].soundFonts.firstIndex(where: { $0.id == id }) else { throw .noSuchFont(id) }
            for sampler in samplers where index < sampler.soundFonts.count { sampler.unloadSoundFont(sampler.soundFonts[index]) }
            model.withLock { emit([.fonts($0.refreshFonts(of: samplers[0].soundFonts))]) }
            awaitRender(after: cycles)
        case .panic:
            for sampler in samplers { sampler.allSoundsOff() }
            events.append(.panic)
        case .reset:
            for sampler in samplers { sampler.sendReset(.system) }
            events.append(.reset)
            awaitRender(after: cycles)
        case .loadFont, .reloadFonts, .playSong, .stopSong, .startRecording, .stopRecording:
            break  // done above
        }
        emit(events)
    }

    /// Where `playSong`/`stopSong` go; refused when the host plays no songs.
    private var availableSongPlayer: any SoundModuleSongPlayer {
        get throws(ControlError) {
            guard let player = songPlayer else { throw .unsupported("song playback") }
            return player
        }
    }

    /// Where `startRecording`/`stopRecording` go; refused when the host records nothing on request.
    private var availableRecorder: any SoundModuleRecorder {
        get throws(ControlError) {
            guard let recorder else { throw .unsupported("recording on request") }
            return recorder
        }
    }

    /// Does `apply` to every sampler, then keeps `value` at `keyPath` of the state (`keep`) and tells subscribers.
    private func set<Value: Equatable & Sendable>(_ keyPath: WritableKeyPath<ControlState, Value>, to value: Value,
                                                  event: (ControlState) -> ControlEvent, applying apply: (SamplerNode) -> Void) {
        for sampler in samplers { apply(sampler) }
        model.withLock { model in
            var changes: [ControlEvent] = []
            model.keep(value, at: keyPath, event: event, in: &changes)
            emit(changes)  // under the lock, in the order the state took the changes
        }
    }

    private func controlChange(_ channel: Int, _ controller: UInt8, _ value: Int, _ name: String) throws(ControlError) {
        let c = try Self.channelIndex(channel)
        let v = try Self.checked(value, name, 0...127)
        for sampler in samplers { sampler.enqueue(.controlChange(channel: c, controller: controller, value: UInt8(v))) }
    }
}
