import Foundation
import Sampler
import MIDICore
import SoundFontFile
import SeqplaySupport

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
// Why unchecked: the state is read and written under `lock`, sampler commands under `commandLock`; the samplers' control paths are thread-safe.
public final class SoundModuleControl: @unchecked Sendable {
    /// The samplers the control drives (a live session's: one per port, the network's, JACK's).
    public let samplers: [SamplerNode]
    /// Where `playSong`/`stopSong` go (nil: refused as unsupported).
    public var songPlayer: (any SoundModuleSongPlayer)? {
        get { lock.withLock { _songPlayer } }
        set { lock.withLock { _songPlayer = newValue } }
    }
    /// Where `startRecording`/`stopRecording` go (nil: refused as unsupported).
    public var recorder: (any SoundModuleRecorder)? {
        get { lock.withLock { _recorder } }
        set { lock.withLock { _recorder = newValue } }
    }

    /// Guards the state and what it is made from; held only for moments.
    let lock = NSLock()
    /// Serialises commands on the samplers (their control calls come from one thread at a time).
    let commandLock = NSRecursiveLock()
    var current: ControlState
    private var _songPlayer: (any SoundModuleSongPlayer)?
    private var _recorder: (any SoundModuleRecorder)?
    /// Per sampler, what its channels looked like at the last poll.
    var seen: [[ChannelStatusTable.Channel]]
    var seenGenerations: [UInt64]
    var presetNames: [String: FontState] = [:]
    /// The bank offset of each font loaded with one (`loadFont(at:bankOffset:)`), by id.
    var bankOffsets: [Int: Int] = [:]
    /// The samplers' completed cycles when the last command that waits for the render thread was
    /// queued; nil once `settle()` has seen it applied.
    var unsettledCycles: [UInt64]?

    private let subscriberLock = NSLock()
    private var subscribers: [Int: @Sendable (ControlEvent) -> Void] = [:]
    private var nextSubscriber = 0
    private let delivery = DispatchQueue(label: "seqplay.control.events")

    /// The thread that follows the samplers (`start()`).
    let following = ServiceThread()

    /// A control over `samplers` (at least one), reading their fonts, programs and settings as they are now.
    public init(samplers: [SamplerNode]) {
        precondition(!samplers.isEmpty, "a sound module has at least one sampler")
        self.samplers = samplers
        for sampler in samplers { sampler.refreshChannelStatus() }
        let settings = samplers[0].settings
        current = ControlState(
            gain: Double(settings.gain),
            reverb: SamplerSettings.Reverb.defaults.updated(with: settings.reverb),
            chorus: SamplerSettings.Chorus.defaults.updated(with: settings.chorus))
        seen = samplers.map { sampler in (0..<16).map { sampler.channelStatus[$0] } }
        seenGenerations = samplers.map { $0.channelStatus.generation }
        for font in samplers[0].soundFonts { presetNames[font.path] = Self.describeFont(at: font.path) }
        current.fonts = fontStates()
        for channel in 0..<16 { current.channels[channel] = channelState(channel, from: seen[0][channel], mute: false) }
    }

    deinit { following.requestStop() }  // not joined: the last reference may go on the thread itself

    // MARK: State

    /// The state now (commands `performWithoutWaiting` queued may not show yet: `settle()` first).
    public var state: ControlState { lock.withLock { current } }

    /// The font at `path` as the state shows it (id 0 until loaded): its name and presets, read from
    /// the file (file I/O: never under `lock`).
    static func describeFont(at path: String) -> FontState {
        let contents = try? SoundFontContents(path: path)
        let font = SoundFontID(id: 0, path: path)
        let presets = (contents?.presets ?? []).map { Preset(bank: $0.bank, program: $0.program, name: $0.name, soundFont: font) }
            .sorted { ($0.bank, $0.program) < ($1.bank, $1.program) }
        let name = contents?.name.flatMap { $0.isEmpty ? nil : $0 } ?? (path as NSString).lastPathComponent
        return FontState(id: 0, path: path, name: name, presets: presets)
    }

    /// The fonts the samplers have loaded, as states: names and presets from `presetNames` (read
    /// before), banks moved by the font's offset. Under `lock`, with the samplers' fonts steady.
    func fontStates() -> [FontState] {
        samplers[0].soundFonts.map { font in
            let known = presetNames[font.path] ?? FontState(id: 0, path: font.path, name: (font.path as NSString).lastPathComponent, presets: [])
            let offset = bankOffsets[font.id] ?? 0
            let presets = known.presets.map { Preset(bank: $0.bank + offset, program: $0.program, name: $0.name, soundFont: font) }
            return FontState(id: font.id, path: font.path, name: known.name, presets: presets)
        }
    }

    /// The preset name of `font`/`bank`/`program` (the bank as the font has it, before its offset).
    private func presetName(font: Int?, bank: Int, program: Int) -> String? {
        guard let font else { return nil }
        let shown = bank + (bankOffsets[font] ?? 0)
        return current.fonts.first { $0.id == font }?.presets.first { $0.bank == shown && $0.program == program }?.name
    }

    func channelState(_ index: Int, from status: ChannelStatusTable.Channel, mute: Bool) -> ChannelState {
        ChannelState(channel: index, program: status.program, bank: status.bank,
                     name: presetName(font: status.font, bank: status.bank, program: status.program),
                     volume: status.volume, pan: status.pan, mute: mute, font: status.font)
    }

    // MARK: Events

    /// Calls `handler` with every change from now on, in order, on a queue of the control's (never
    /// the render thread). Keep the returned subscription; `cancel()` it to stop.
    public func subscribe(_ handler: @escaping @Sendable (ControlEvent) -> Void) -> ControlSubscription {
        subscriberLock.lock()
        defer { subscriberLock.unlock() }
        nextSubscriber += 1
        subscribers[nextSubscriber] = handler
        return ControlSubscription(control: self, id: nextSubscriber)
    }

    func unsubscribe(_ id: Int) {
        subscriberLock.lock()
        subscribers[id] = nil
        subscriberLock.unlock()
    }

    func emit(_ events: [ControlEvent]) {
        guard !events.isEmpty else { return }
        subscriberLock.lock()
        let handlers = Array(subscribers.sorted { $0.key < $1.key }.map(\.value))
        subscriberLock.unlock()
        guard !handlers.isEmpty else { return }
        delivery.async {
            for event in events { for handler in handlers { handler(event) } }
        }
    }

    // MARK: The host's own changes

    /// The host connected an input (a keyboard, a network peer).
    public func inputConnected(_ name: String) {
        lock.withLock {
            guard !current.inputs.contains(InputState(name: name)) else { return }
            current.inputs.append(InputState(name: name))
            emit([.inputs(current.inputs)])
        }
    }

    /// The host lost an input.
    public func inputDisconnected(_ name: String) {
        lock.withLock {
            guard current.inputs.contains(InputState(name: name)) else { return }
            current.inputs.removeAll { $0.name == name }
            emit([.inputs(current.inputs)])
        }
    }

    /// The host's recording (nil: none).
    public func recordingChanged(_ recording: RecordingState?) {
        hostChanged(\.recording, to: recording, event: ControlEvent.recording)
    }

    /// The host's song (nil: none).
    public func songChanged(_ song: SongState?) {
        hostChanged(\.song, to: song, event: ControlEvent.song)
    }

    /// Keeps what the host says at `keyPath` of the state, and tells subscribers when that changed it.
    private func hostChanged<Value: Equatable>(_ keyPath: WritableKeyPath<ControlState, Value>, to value: Value,
                                               event: (Value) -> ControlEvent) {
        lock.withLock {
            var events: [ControlEvent] = []
            keep(value, at: keyPath, event: event, in: &events)
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
            set(\.channels[Int(c)].mute, to: muted, event: { _ in .channel(self.current.channels[Int(c)]) }) {
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
            set(\.gain, to: gain, event: ControlEvent.gain) { $0.gain = Float(gain) }
        case .reverb(let change):
            let reverb = try Self.applied(change, to: state.reverb)
            set(\.reverb, to: reverb, event: ControlEvent.reverb) { sampler in
                if let enabled = change.isEnabled { sampler.reverbEnabled = enabled }
                sampler.setReverb(roomSize: change.roomSize, damping: change.damping, width: change.width, level: change.level)
            }
        case .chorus(let change):
            let chorus = try Self.applied(change, to: state.chorus)
            set(\.chorus, to: chorus, event: ControlEvent.chorus) { sampler in
                if let enabled = change.isEnabled { sampler.chorusEnabled = enabled }
                sampler.setChorus(voices: change.voices, level: change.level, speed: change.speed, depth: change.depth)
            }
        case .unloadFont(let id):
            guard let index = samplers[0].soundFonts.firstIndex(where: { $0.id == id }) else { throw .noSuchFont(id) }
            for sampler in samplers where index < sampler.soundFonts.count { sampler.unloadSoundFont(sampler.soundFonts[index]) }
            lock.withLock { emit([.fonts(refreshFonts())]) }
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
    private func set<Value: Equatable>(_ keyPath: WritableKeyPath<ControlState, Value>, to value: Value,
                                       event: (Value) -> ControlEvent, applying apply: (SamplerNode) -> Void) {
        for sampler in samplers { apply(sampler) }
        lock.withLock {
            var changes: [ControlEvent] = []
            keep(value, at: keyPath, event: event, in: &changes)
            emit(changes)  // under the lock, in the order the state took the changes
        }
    }

    /// Keeps `value` at `keyPath` of the state, adding `event(value)` to `events` when that changed it; under `lock`.
    private func keep<Value: Equatable>(_ value: Value, at keyPath: WritableKeyPath<ControlState, Value>,
                                        event: (Value) -> ControlEvent, in events: inout [ControlEvent]) {
        guard current[keyPath: keyPath] != value else { return }
        current[keyPath: keyPath] = value
        events.append(event(value))
    }

    private func controlChange(_ channel: Int, _ controller: UInt8, _ value: Int, _ name: String) throws(ControlError) {
        let c = try Self.channelIndex(channel)
        let v = try Self.checked(value, name, 0...127)
        for sampler in samplers { sampler.enqueue(.controlChange(channel: c, controller: controller, value: UInt8(v))) }
    }
}
