import Foundation
import Sampler
import MIDICore
import SoundFontFile

/// Plays songs for a `SoundModuleControl` (`playSong`/`stopSong`), where the host can.
public protocol SoundModuleSongPlayer: AnyObject, Sendable {
    /// Starts playing the song at `path` (stopping one playing).
    func play(path: String) throws
    /// Stops the song.
    func stop()
}

/// Records what a sound module plays for a `SoundModuleControl` (`startRecording`/`stopRecording`).
public protocol SoundModuleRecorder: AnyObject, Sendable {
    func startRecording(path: String) throws
    func stopRecording()
}

/// A handle for a subscription to a `SoundModuleControl`'s events; `cancel()` (or the control going
/// away) ends it.
public final class ControlSubscription: @unchecked Sendable {
    private weak var control: SoundModuleControl?
    let id: Int

    init(control: SoundModuleControl, id: Int) {
        self.control = control
        self.id = id
    }

    /// No more events for this subscriber (events already being delivered may still arrive).
    public func cancel() { control?.unsubscribe(id) }
}

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
    private let lock = NSLock()
    /// Serialises commands on the samplers (their control calls come from one thread at a time).
    private let commandLock = NSRecursiveLock()
    private var current: ControlState
    private var _songPlayer: (any SoundModuleSongPlayer)?
    private var _recorder: (any SoundModuleRecorder)?
    /// Per sampler, what its channels looked like at the last poll.
    private var seen: [[ChannelStatusTable.Channel]]
    private var seenGenerations: [UInt64]
    private var presetNames: [String: FontState] = [:]
    /// The bank offset of each font loaded with one (`loadFont(at:bankOffset:)`), by id.
    private var bankOffsets: [Int: Int] = [:]
    /// The samplers' completed cycles when the last command that waits for the render thread was
    /// queued; nil once `settle()` has seen it applied.
    private var unsettledCycles: [UInt64]?

    private let subscriberLock = NSLock()
    private var subscribers: [Int: @Sendable (ControlEvent) -> Void] = [:]
    private var nextSubscriber = 0
    private let delivery = DispatchQueue(label: "seqplay.control.events")

    private let pollLock = NSLock()
    private var pollThread: Thread?
    private var polling = false

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

    deinit { stop() }

    // MARK: State

    /// The state now (commands `performWithoutWaiting` queued may not show yet: `settle()` first).
    public var state: ControlState { lock.withLock { current } }

    /// The font at `path` as the state shows it (id 0 until loaded): its name and presets, read from
    /// the file (file I/O: never under `lock`).
    private static func describeFont(at path: String) -> FontState {
        let contents = try? SoundFontContents(path: path)
        let presets = (contents?.presets ?? []).map { PresetState(bank: $0.bank, program: $0.program, name: $0.name) }
            .sorted { ($0.bank, $0.program) < ($1.bank, $1.program) }
        let name = contents?.name.flatMap { $0.isEmpty ? nil : $0 } ?? (path as NSString).lastPathComponent
        return FontState(id: 0, path: path, name: name, presets: presets)
    }

    /// The fonts the samplers have loaded, as states: names and presets from `presetNames` (read
    /// before), banks moved by the font's offset. Under `lock`, with the samplers' fonts steady.
    private func fontStates() -> [FontState] {
        samplers[0].soundFonts.map { font in
            let known = presetNames[font.path] ?? FontState(id: 0, path: font.path, name: (font.path as NSString).lastPathComponent, presets: [])
            let offset = bankOffsets[font.id] ?? 0
            let presets = offset == 0 ? known.presets
                : known.presets.map { PresetState(bank: $0.bank + offset, program: $0.program, name: $0.name) }
            return FontState(id: font.id, path: font.path, name: known.name, presets: presets)
        }
    }

    /// The preset name of `font`/`bank`/`program` (the bank as the font has it, before its offset).
    private func presetName(font: Int?, bank: Int, program: Int) -> String? {
        guard let font else { return nil }
        let shown = bank + (bankOffsets[font] ?? 0)
        return current.fonts.first { $0.id == font }?.presets.first { $0.bank == shown && $0.program == program }?.name
    }

    private func channelState(_ index: Int, from status: ChannelStatusTable.Channel, mute: Bool) -> ChannelState {
        ChannelState(channel: index + 1, program: status.program, bank: status.bank,
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

    private func emit(_ events: [ControlEvent]) {
        guard !events.isEmpty else { return }
        subscriberLock.lock()
        let handlers = Array(subscribers.sorted { $0.key < $1.key }.map(\.value))
        subscriberLock.unlock()
        guard !handlers.isEmpty else { return }
        delivery.async {
            for event in events { for handler in handlers { handler(event) } }
        }
    }

    // MARK: Following the samplers

    /// Starts following what the samplers play (a keyboard's program changes, volume and pan), every 10 ms.
    public func start() {
        pollLock.lock()
        defer { pollLock.unlock() }
        guard pollThread == nil else { return }
        polling = true
        let thread = Thread { [weak self] in
            while let control = self, control.isPolling {
                control.poll()
                usleep(10_000)
            }
        }
        thread.name = "seqplay control"
        pollThread = thread
        thread.start()
    }

    /// Stops following the samplers.
    public func stop() {
        pollLock.lock()
        polling = false
        pollThread = nil
        pollLock.unlock()
    }

    private var isPolling: Bool { pollLock.withLock { polling } }

    /// Takes what the samplers' render threads published since the last look into the state and
    /// tells subscribers; returns whether anything changed.
    @discardableResult
    public func poll() -> Bool {
        lock.lock()
        var events: [ControlEvent] = []
        for (index, sampler) in samplers.enumerated() {
            let generation = sampler.channelStatus.generation
            guard generation != seenGenerations[index] else { continue }
            seenGenerations[index] = generation
            for channel in 0..<16 {
                let status = sampler.channelStatus[channel]
                guard status != seen[index][channel] else { continue }
                seen[index][channel] = status
                let updated = channelState(channel, from: status, mute: current.channels[channel].mute)
                if updated != current.channels[channel] {
                    current.channels[channel] = updated
                    events.append(.channel(updated))
                }
            }
        }
        emit(events)  // under the lock: subscribers get changes in the order the state took them
        lock.unlock()
        return !events.isEmpty
    }

    /// Waits (up to `timeout` s, holding no lock) until every sampler's render thread has ended two
    /// cycles since the last command that changes what the render thread publishes was queued, then
    /// polls: that command's effect is in `state` when this returns. Returns at once when nothing is
    /// waiting. A render cycle takes milliseconds; the timeout only matters when the host is starved
    /// of CPU or a sampler does not render.
    public func settle(timeout: Double = 1) {
        guard let cycles = lock.withLock({ unsettledCycles }) else { return }
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if zip(samplers, cycles).allSatisfy({ $0.channelStatus.completedCycles &- $1 >= 2 }) { break }
            usleep(500)
        }
        poll()
        lock.withLock { if unsettledCycles == cycles { unsettledCycles = nil } }
    }

    /// Notes that the render thread must play `cycles`' command before the state shows it (`settle`).
    private func awaitRender(after cycles: [UInt64]) {
        lock.withLock { unsettledCycles = cycles }
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

    /// Loads the font at `path` on top (`ControlCommand.loadFont`), its banks moved by `bankOffset`
    /// (FluidSynth's `load FILE 1 OFFSET`), and returns its id once the state shows it. Only a
    /// regular file is opened (a FIFO or a device is refused before anything reads it), and the file
    /// is read through before any lock is taken, so a slow disk holds up no other face: the
    /// synthesizer then loads it from the page cache.
    public func loadFont(at path: String, bankOffset: Int = 0) throws(ControlError) -> Int {
        guard (-16383...16383).contains(bankOffset) else {
            throw .outOfRange(name: "bank offset", value: "\(bankOffset)", range: "-16383-16383")
        }
        if let problem = RegularFile.readThrough(path) { throw .fontFailed(path: path, reason: problem) }
        let described = Self.describeFont(at: path)
        commandLock.lock()
        let cycles = samplers.map { $0.channelStatus.completedCycles }
        var loaded: [SoundFontID] = []
        for sampler in samplers {
            do {
                loaded.append(try sampler.loadSoundFont(at: path))
            } catch {
                // Samplers that loaded it already give it up again, so they all keep the same fonts.
                for (index, font) in loaded.enumerated() { samplers[index].unloadSoundFont(font) }
                commandLock.unlock()
                throw .fontFailed(path: path, reason: "\(error)")
            }
        }
        if bankOffset != 0 { for (sampler, font) in zip(samplers, loaded) { sampler.setBankOffset(bankOffset, of: font) } }
        lock.withLock {
            presetNames[path] = described
            if bankOffset != 0 { bankOffsets[loaded[0].id] = bankOffset }
            emit([.fonts(refreshFonts())])
        }
        commandLock.unlock()
        awaitRender(after: cycles)
        settle()
        return loaded[0].id
    }

    /// Loads the fonts with these ids again from their files, each keeping its id and place
    /// (FluidSynth's `reload ID`; SIGHUP reloads them all); channels keep their programs where the
    /// new contents have them. Returns once the state shows it.
    public func reloadFont(id: Int) throws(ControlError) {
        try reloadFonts([id])
    }

    private func reloadFonts(_ ids: [Int]) throws(ControlError) {
        let fonts = samplers[0].soundFonts.filter { ids.contains($0.id) }
        for id in ids where !fonts.contains(where: { $0.id == id }) { throw .noSuchFont(id) }
        for font in fonts {
            if let problem = RegularFile.readThrough(font.path) { throw .fontFailed(path: font.path, reason: problem) }
        }
        let described = fonts.map { Self.describeFont(at: $0.path) }
        commandLock.lock()
        let cycles = samplers.map { $0.channelStatus.completedCycles }
        var failure: ControlError?
        for font in fonts {
            guard let index = samplers[0].soundFonts.firstIndex(of: font) else { continue }
            for sampler in samplers where index < sampler.soundFonts.count {
                do {
                    try sampler.reloadSoundFont(sampler.soundFonts[index])
                } catch {
                    failure = failure ?? .fontFailed(path: font.path, reason: "\(error)")
                }
            }
        }
        lock.withLock {
            for state in described { presetNames[state.path] = state }
            emit([.fonts(refreshFonts())])
        }
        commandLock.unlock()
        awaitRender(after: cycles)
        settle()
        if let failure { throw failure }
    }

    /// The state's fonts made again from the samplers'; under `lock`.
    private func refreshFonts() -> [FontState] {
        current.fonts = fontStates()
        return current.fonts
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

    /// `channel` (1...16) as FluidSynth's 0-based channel.
    static func channelIndex(_ channel: Int) throws(ControlError) -> UInt8 {
        guard (1...16).contains(channel) else { throw .noSuchChannel(channel) }
        return UInt8(channel - 1)
    }

    static func checked(_ value: Int, _ name: String, _ range: ClosedRange<Int>) throws(ControlError) -> Int {
        guard range.contains(value) else { throw .outOfRange(name: name, value: "\(value)", range: "\(range.lowerBound)-\(range.upperBound)") }
        return value
    }

    static func checked(_ value: Double?, _ name: String, _ range: ClosedRange<Double>) throws(ControlError) {
        guard let value else { return }
        guard value.isFinite, range.contains(value) else {
            throw .outOfRange(name: name, value: "\(value)", range: "\(range.lowerBound)-\(range.upperBound)")
        }
    }

    /// `reverb` with each field `change` gives set, every number first checked against its range
    /// (SamplerSettings', FluidSynth's) and named in the error as the faces word it.
    static func applied(_ change: SamplerSettings.Reverb, to reverb: SamplerSettings.Reverb) throws(ControlError) -> SamplerSettings.Reverb {
        let ranges = SamplerSettings.ranges
        for (value, name, range) in [(change.roomSize, "room size", ranges.roomSize), (change.damping, "damping", ranges.damping),
                                     (change.width, "width", ranges.width), (change.level, "level", ranges.reverbLevel)] {
            try checked(value, name, range)
        }
        return reverb.updated(with: change)
    }

    /// `chorus` with each field `change` gives set, checked as `applied(_:to:)` checks a reverb's; the
    /// waveform cannot be changed.
    static func applied(_ change: SamplerSettings.Chorus, to chorus: SamplerSettings.Chorus) throws(ControlError) -> SamplerSettings.Chorus {
        let ranges = SamplerSettings.ranges
        guard change.type == nil || change.type == chorus.type else { throw .unsupported("changing the chorus waveform") }
        if let voices = change.voices { _ = try checked(voices, "voices", ranges.chorusVoices) }
        for (value, name, range) in [(change.level, "level", ranges.chorusLevel), (change.speed, "speed", ranges.chorusSpeed),
                                     (change.depth, "depth", ranges.chorusDepth)] {
            try checked(value, name, range)
        }
        return chorus.updated(with: change)
    }

    // MARK: Restoring a saved state

    /// Makes the module sound as `saved` says: fonts it had loaded that are not loaded now (from
    /// their files), each channel's preset, volume, pan and mute, gain, reverb and chorus. What
    /// cannot be restored (a font gone, a preset no font has) is skipped and described in the lines
    /// returned.
    @discardableResult
    public func restore(_ saved: ControlState) -> [String] {
        var problems: [String] = []
        // The commands are queued back to back and the render thread applies them together: one wait.
        defer { settle() }
        let loaded = Set(state.fonts.map(\.path))
        for font in saved.fonts where !loaded.contains(font.path) {
            do { _ = try loadFont(at: font.path) } catch { problems.append("\(error)") }
        }
        let fonts = state.fonts
        for channel in saved.channels where (1...16).contains(channel.channel) {
            if let savedFont = channel.font, let path = saved.fonts.first(where: { $0.id == savedFont })?.path,
               let font = fonts.last(where: { $0.path == path }),
               (try? performWithoutWaiting(.select(channel: channel.channel, font: font.id, bank: channel.bank,
                                                   program: channel.program))) != nil {
            } else if channel.font != nil {
                do {
                    try performWithoutWaiting(.program(channel: channel.channel, program: channel.program, bank: channel.bank))
                } catch {
                    problems.append("channel \(channel.channel): \(error)")
                }
            }
            for command in [ControlCommand.volume(channel: channel.channel, value: channel.volume),
                            .pan(channel: channel.channel, value: channel.pan),
                            .mute(channel: channel.channel, muted: channel.mute)] {
                do { try performWithoutWaiting(command) } catch { problems.append("channel \(channel.channel): \(error)") }
            }
        }
        for command in [ControlCommand.gain(saved.gain), .reverb(saved.reverb), .chorus(saved.chorus)] {
            do { try performWithoutWaiting(command) } catch { problems.append("\(error)") }
        }
        return problems
    }
}
