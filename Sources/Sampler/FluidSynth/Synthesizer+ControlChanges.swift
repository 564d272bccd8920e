import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// Control of a running synthesizer from other threads: queued messages, mutes, effect parameters and the
/// channel status it publishes.
extension Synthesizer {
    /// Queues a channel voice message (note, controller, program, pressure, pitch bend) for the render
    /// thread, which acts on it at the start of the next render as `receive(_:)` would. Other
    /// messages are ignored. From a control thread; does not wait for the render thread.
    public func enqueue(_ message: MIDIMessage) {
        switch message {
        case .noteOff(let c, let n, let v): perform(.message(status: 0x80 | c & 15, data1: n & 127, data2: v & 127))
        case .noteOn(let c, let n, let v): perform(.message(status: 0x90 | c & 15, data1: n & 127, data2: v & 127))
        case .polyPressure(let c, let n, let p): perform(.message(status: 0xA0 | c & 15, data1: n & 127, data2: p & 127))
        case .controlChange(let c, let cc, let v): perform(.message(status: 0xB0 | c & 15, data1: cc & 127, data2: v & 127))
        case .programChange(let c, let p): perform(.message(status: 0xC0 | c & 15, data1: p & 127, data2: 0))
        case .channelPressure(let c, let p): perform(.message(status: 0xD0 | c & 15, data1: p & 127, data2: 0))
        case .pitchBend(let c, let v):
            perform(.message(status: 0xE0 | c & 15, data1: UInt8(v & 127), data2: UInt8(v >> 7 & 127)))
        default: break
        }
    }

    /// Mutes or unmutes `channel` (0-based): a muted channel's sounding voices are silenced and its
    /// note-ons dropped (controllers and programs still act). At the next render.
    public func setMuted(_ muted: Bool, channel: UInt8) { perform(.mute(channel: channel & 15, muted: muted)) }

    /// Sets the reverb's parameters given (FluidSynth's ranges). FluidSynth reads its settings (taking
    /// their mutex) to check each value, so this takes the synth between two render cycles, as
    /// `apply(_:)` does, rather than queueing it for the render thread.
    public func setReverb(roomSize: Double? = nil, damping: Double? = nil, width: Double? = nil, level: Double? = nil) {
        let given = SamplerSettings.Reverb(roomSize: roomSize, damping: damping, width: width, level: level)
        withSynthBetweenCycles { setParameters(of: given) }
        settings.reverb = settings.reverb.updated(with: given)
    }

    /// Sets the chorus's parameters given (FluidSynth's ranges), between two render cycles (see `setReverb`).
    public func setChorus(voices: Int? = nil, level: Double? = nil, speed: Double? = nil, depth: Double? = nil) {
        let given = SamplerSettings.Chorus(voices: voices, level: level, speed: speed, depth: depth)
        withSynthBetweenCycles { setParameters(of: given) }
        settings.chorus = settings.chorus.updated(with: given)
    }

    /// Publishes every channel's program, volume and pan to `channelStatus` now (between render
    /// cycles), e.g. before the first render.
    public func refreshChannelStatus() {
        withSynthBetweenCycles { publishAllChannels() }
    }

    /// Publishes `channel`'s preset (render thread, or a control thread holding the synth).
    func publishProgram(_ channel: Int32) {
        // The preset FluidSynth plays (a substitute when the one asked for is missing), as its shell shows it.
        if let preset = fluid_synth_get_channel_preset(synth, channel) {
            let font = fluid_preset_get_sfont(preset).map { Int(fluid_sfont_get_id($0)) } ?? 0
            channelStatus.setProgram(channel: Int(channel), known: true, font: font, bank: Int(fluid_preset_get_banknum(preset)),
                                     program: Int(fluid_preset_get_num(preset)))
        } else {
            var fontID: Int32 = 0, bank: Int32 = 0, program: Int32 = 0
            _ = fluid_synth_get_program(synth, channel, &fontID, &bank, &program)
            channelStatus.setProgram(channel: Int(channel), known: false, font: Int(fontID), bank: Int(bank), program: Int(program))
        }
    }

    /// Publishes every channel's preset and controllers 7 and 10.
    func publishAllChannels() {
        var channel: Int32 = 0
        while channel < 16 {
            publishProgram(channel)
            var volume: Int32 = 100, pan: Int32 = 64
            _ = fluid_synth_get_cc(synth, channel, 7, &volume)
            _ = fluid_synth_get_cc(synth, channel, 10, &pan)
            channelStatus.setController(channel: Int(channel), volume: Int(volume), pan: Int(pan))
            channel += 1
        }
    }
}
