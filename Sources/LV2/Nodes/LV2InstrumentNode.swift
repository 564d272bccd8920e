import AudioGraph
import MIDICore

/// An LV2 instrument (a plugin taking MIDI, `seqplay plugins --where instrument`) as a graph source node
/// and a destination of the scheduler, beside the SoundFont sampler:
///
/// ```swift
/// let piano = try LV2InstrumentNode(uri: "http://drobilla.net/plugins/mda/Piano", channels: [0],
///                                   values: ["random_detuning": 0])
/// piano.eventSource = player             // any ScheduledMIDISource
/// engine.attach(piano)
/// engine.connect([piano, engine.mainMixerNode])
/// ```
///
/// Each cycle it takes the events due in the cycle from `eventSource` and puts each into the plugin's atom
/// sequence at its own frame in the cycle, the time the source hands it with (`MIDIReceiver.receive(_:at:)`):
/// a note starts on the sample its time falls on (the SoundFont sampler starts notes on its 64-frame grid);
/// a message without a time (live input) goes at the cycle's start, or after the last timed one. Messages on channels other than `channels`
/// are ignored. Output is stereo: a plugin's first two audio outputs (a mono plugin's one output on both),
/// times `gain`.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone; MIDI from other threads through a lock-free queue.
public final class LV2InstrumentNode: AudioNode, MIDIReceiver, @unchecked Sendable {
    /// The gain an instrument's output gets unless told otherwise: LV2 instruments play at full scale (mda
    /// Piano's chords clip), while the SoundFont sampler's voices are staged by FluidSynth's master gain (0.2),
    /// about 20 dB lower (mda Piano's RMS is 9 to 12 times a GM piano's on the same parts): -20 dB brings the
    /// two into step, so that a mix of both does not clip.
    public static let defaultGain: Float = 0.1

    /// The linear gain applied to the plugin's output (`defaultGain` unless set; 1 for the plugin's own
    /// level). Set it before the engine starts.
    public var gain: Float = LV2InstrumentNode.defaultGain

    /// The plugin and the settings it starts with.
    public let settings: LV2PluginSettings
    /// The 0-based MIDI channels this instrument plays.
    public let channels: [Int]
    /// Where scheduled MIDI comes from (events are taken on the render thread).
    public var eventSource: (any ScheduledMIDISource)?

    /// The output of the last render cycle (its first `frameCount` frames), e.g. for a stem.
    public private(set) var lastOutput: AudioBuffer?

    /// Where the plugin's scheduled work runs (`LV2WorkerMode`); set it before the engine starts.
    public var workerMode: LV2WorkerMode = .synchronous {
        didSet { instance?.workerMode = workerMode }
    }

    private var instance: LV2Instance?
    private var plays = [Bool](repeating: false, count: 16)
    private var frameInCycle = 0
    /// The engine sample time and frame count of the cycle rendering (or last rendered).
    private var cycleStart: Int64 = 0
    private var cycleFrames = 1
    private var spare = UnsafeMutablePointer<Float>.allocate(capacity: 1)

    /// An instrument running the plugin `settings` describe, playing `channels` (0-based; all 16 by default).
    public init(settings: LV2PluginSettings, channels: [Int] = Array(0..<16), name: String? = nil) {
        self.settings = settings
        self.channels = channels
        for channel in channels where (0..<16).contains(channel) { plays[channel] = true }
        super.init(name: name ?? settings.plugin.name)
    }

    /// An instrument running the installed instrument `uri` with `values` for its control inputs after
    /// `preset`, playing `channels`; throws an `LV2Error` for an unknown plugin, port, value or preset.
    public convenience init(uri: String, channels: [Int] = Array(0..<16), values: [String: Float] = [:],
                            preset: String? = nil) throws(LV2Error) {
        let controls = values.sorted { $0.key < $1.key }.map { LV2ControlValue(symbol: $0.key, value: $0.value) }
        self.init(settings: try LV2PluginSettings(uri: uri, values: controls, preset: preset, role: .instrument),
                  channels: channels)
    }

    deinit { spare.deallocate() }

    public override var numberOfInputs: Int { 0 }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        AudioFormat(sampleRate: engine?.outputFormat.sampleRate ?? 44_100, channelCount: 2)
    }

    /// Sets control input `symbol`. Any thread, while the engine plays.
    public func setValue(_ value: Float, for symbol: String) { instance?.setValue(value, forSymbol: symbol) }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        let format = setup.outputFormats[0]
        guard !settings.plugin.audioOutputs.isEmpty else {
            throw LV2Error.unsupportedChannels(uri: settings.uri, inputs: 0, outputs: 0, channelCount: format.channelCount)
        }
        let instance = try LV2Instance(settings: settings, sampleRate: format.sampleRate, maximumFrameCount: setup.maximumFrameCount)
        instance.workerMode = workerMode
        self.instance = instance
        spare.deallocate()
        spare = .allocate(capacity: max(setup.maximumFrameCount, 1) * max(settings.plugin.audioInputs.count + 1, 1))
        spare.initialize(repeating: 0, count: max(setup.maximumFrameCount, 1) * max(settings.plugin.audioInputs.count + 1, 1))
        LV2Log.forwardPendingMessages()
    }

    public override func reset() { instance?.reset() }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        lastOutput = output
        guard let instance else { return }
        cycleStart = context.sampleTime
        cycleFrames = max(1, context.frameCount)
        frameInCycle = 0
        eventSource?.deliverEvents(before: context.sampleTime + Int64(context.frameCount), to: self)
        let outputCount = instance.audioOutputPorts.count
        for number in 0..<outputCount {
            instance.connectAudioOutput(number, to: number < 2 ? output[number].baseAddress! : spare)
        }
        for number in 0..<instance.audioInputPorts.count {
            instance.connectAudioInput(number, to: spare + (1 + number) * context.frameCount)
        }
        instance.run(frameCount: context.frameCount)
        if outputCount == 1 { output[1].baseAddress!.update(from: output[0].baseAddress!, count: context.frameCount) }
        if gain != 1 {
            for channel in 0..<2 {
                let samples = output[channel].baseAddress!
                for frame in 0..<context.frameCount { samples[frame] *= gain }
            }
        }
        frameInCycle = 0
    }

    /// Puts `message`, due at engine sample `sampleTime`, into the plugin's input at its frame in the
    /// cycle (never before an event already put in). On the render thread; real-time safe.
    public func receive(_ message: MIDIMessage, at sampleTime: Int64) {
        frameInCycle = min(max(frameInCycle, Int(clamping: sampleTime - cycleStart)), cycleFrames - 1)
        receive(message)
    }

    /// Puts `message` into the plugin's input at the frame of the last event put in this cycle (its
    /// start when none). On the render thread (an `eventSource` delivers there); real-time safe.
    public func receive(_ message: MIDIMessage) {
        guard let instance else { return }
        if let channel = message.channel, !plays[Int(channel)] { return }
        var bytes: (UInt8, UInt8, UInt8) = (message.statusByte, 0, 0)
        let count: Int
        switch message {
        case .noteOff(_, let note, let velocity), .noteOn(_, let note, let velocity):
            bytes.1 = note; bytes.2 = velocity; count = 3
        case .polyPressure(_, let note, let pressure):
            bytes.1 = note; bytes.2 = pressure; count = 3
        case .controlChange(_, let controller, let value):
            bytes.1 = controller; bytes.2 = value; count = 3
        case .programChange(_, let value), .channelPressure(_, let value):
            bytes.1 = value; count = 2
        case .pitchBend(_, let value):
            bytes.1 = UInt8(value & 0x7F); bytes.2 = UInt8((value >> 7) & 0x7F); count = 3
        case .systemExclusive(let data):
            data.withUnsafeBytes { instance.addMIDIEvent(frame: frameInCycle, bytes: $0) }
            return
        default:
            return
        }
        withUnsafeBytes(of: &bytes) { instance.addMIDIEvent(frame: frameInCycle, bytes: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

}
