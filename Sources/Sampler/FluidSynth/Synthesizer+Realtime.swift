import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// The render thread's side: MIDI in, audio out, and the resets and SysEx it sends FluidSynth.
extension Synthesizer {
    /// Acts on one MIDI message now. Timing and transport messages are ignored; SysEx goes to
    /// FluidSynth's SysEx handler (GM/GS/XG resets, MIDI Tuning Standard). Does not allocate.
    public func receive(_ message: MIDIMessage) {
        switch message {
        case .noteOn(let c, _, _) where mutedChannels & (1 << UInt16(c & 15)) != 0: break
        case .noteOn(let c, let note, let velocity):
            if let noteLimiter {
                if velocity == 0 {
                    if noteLimiter.admitsNoteOff(channel: c, key: note) { fluid_synth_noteoff(synth, Int32(c), Int32(note)) }
                    break
                }
                guard noteLimiter.admitsNoteOn(channel: c, key: note, velocity: velocity, synth: synth) else { break }
                fluid_synth_noteon(synth, Int32(c), Int32(note), Int32(velocity))
                noteLimiter.noteStarted(channel: c, key: note, highestID: voiceStartGains.voicesStarted(in: synth, needsID: true))
                break
            }
            fluid_synth_noteon(synth, Int32(c), Int32(note), Int32(velocity))
            voiceStartGains.voicesStarted(in: synth)
        case .noteOff(let c, let note, _):
            if let noteLimiter, !noteLimiter.admitsNoteOff(channel: c, key: note) { break }
            fluid_synth_noteoff(synth, Int32(c), Int32(note))
        case .polyPressure(let c, let note, let p): fluid_synth_key_pressure(synth, Int32(c), Int32(note), Int32(p))
        case .controlChange(let c, let cc, _) where (cc == 0 || cc == 32) && forcedPrograms.isForced(c): break
        case .controlChange(let c, let cc, let value):
            fluid_synth_cc(synth, Int32(c), Int32(cc), Int32(value))
            if cc == 7 || cc == 10 { channelStatus.setController(channel: Int(c & 15), cc: cc, value: Int(value)) }
        case .programChange(let c, _) where forcedPrograms.isForced(c): break
        case .programChange(let c, let program):
            fluid_synth_program_change(synth, Int32(c), Int32(program))
            if forcedPrograms.hasFont(c) { forcedPrograms.selectFromFont(c, in: synth) }
            publishProgram(Int32(c & 15))
        case .channelPressure(let c, let p): fluid_synth_channel_pressure(synth, Int32(c), Int32(p))
        case .pitchBend(let c, let value): fluid_synth_pitch_bend(synth, Int32(c), Int32(value))
        case .systemExclusive(let bytes): sendSysEx(bytes)
        case .systemReset: systemReset()
        case .timeCodeQuarterFrame, .songPosition, .songSelect, .tuneRequest,
             .timingClock, .start, .continue, .stop, .activeSensing:
            break
        }
    }

    /// True once FluidSynth's one-thread OpenMP regions (its reverb and chorus, in Debian's build) have
    /// run inline on the calling thread instead of through libgomp, which allocates for each of them.
    public static var runsOpenMPRegionsInline: Bool { seqplay_openmp_inline_regions_active() != 0 }

    /// Renders `frameCount` frames of stereo audio into `left` and `right`, overwriting them, after
    /// applying the queued control changes. Does not allocate or lock; FluidSynth renders in 64-frame
    /// blocks internally, so events received between calls of 64 frames land exactly on block boundaries.
    public func render(frameCount: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        applyQueuedCommands()
        fluid_synth_write_float(synth, Int32(frameCount), left, 0, 1, right, 0, 1)
        voices.store(voiceCutter.soundingVoices(in: synth), ordering: .relaxed)
    }

    /// Resets controllers and programs, then silences every voice. FluidSynth 2.3's system reset
    /// alone lets voices that have already been rendered fade out with their release envelopes
    /// (and silencing them before the reset does not help).
    func systemReset() {
        fluid_synth_system_reset(synth)
        fluid_synth_all_sounds_off(synth, -1)
        forcedPrograms.select(in: synth)
        publishAllChannels()
    }

    /// Hands a SysEx message to FluidSynth without its framing bytes (F0 ... F7), as it expects.
    /// FluidSynth 2.3 acts on GM System On but ignores GS Reset and XG System On (2.4 handles
    /// them); when it leaves a reset unhandled, it gets a system reset instead. Every reset ends
    /// with all voices silenced, as `systemReset()` explains.
    func sendSysEx(_ message: [UInt8]) {
        message.withUnsafeBufferPointer { buffer in
            let body = ResetKind.sysExBody(of: buffer)
            guard let start = body.baseAddress, body.count > 0 else { return }
            var handled: Int32 = 0
            let chars = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            fluid_synth_sysex(synth, chars, Int32(body.count), nil, nil, &handled, 0)
            if ResetKind.deviceReset(body) != nil {
                if handled == 0 { fluid_synth_system_reset(synth) }
                fluid_synth_all_sounds_off(synth, -1)
                forcedPrograms.select(in: synth)
                publishAllChannels()
            }
        }
    }
}
