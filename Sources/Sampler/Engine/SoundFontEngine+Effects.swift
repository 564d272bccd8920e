import EngineKernels

/// Reverb and chorus as FluidSynth 2.3 has them: each voice's reverb and chorus sends (generators 16 and 15,
/// CC 91 and CC 93 through the default modulators) scale its samples into the two buses of `EngineEffects`,
/// stretch by stretch as its dry mix (a send that changes glides over 64 samples, as its pan does), and the
/// effects add their output to the dry output at the end of each chunk. The sends go to per-group buffers
/// summed in group order, so the output is the same bytes on any number of threads.
extension SoundFontEngine {
    /// The reverb (FluidSynth 2.3's, `EngineReverb`): on or off and its parameters, every field given. A new
    /// engine has FluidSynth's parameters with the reverb off (it renders dry); `SamplerNode` sets it from its
    /// settings, on unless they say off, as libfluidsynth is.
    public var reverb: SamplerSettings.Reverb { effects.reverbSettings }

    /// The chorus (FluidSynth 2.3's, `EngineChorus`): on or off and its parameters, every field given. A new
    /// engine has FluidSynth's parameters (a sine) with the chorus off; `SamplerNode` sets it from its settings.
    public var chorus: SamplerSettings.Chorus { effects.chorusSettings }

    /// Turns the reverb on or off and sets the parameters `change` gives (nil fields stay as they are), in
    /// FluidSynth's ranges and with its limits: between renders, or between two events of one (it acts from
    /// there). Allocates nothing.
    public func setReverb(_ change: SamplerSettings.Reverb) { effects.setReverb(change) }

    /// Turns the chorus on or off and sets the parameters `change` gives (nil fields stay as they are), as
    /// `setReverb(_:)` does; a change of a parameter starts the chorus's modulation again from its phases, as
    /// libfluidsynth's does.
    public func setChorus(_ change: SamplerSettings.Chorus) { effects.setChorus(change) }

    /// Records voice `v`'s sends for the stretch of `count` frames from chunk frame `frame` that `closeSegment`
    /// mixes dry (before it moves the gains on), and moves the send gains on with its gain ramp.
    func recordSends(_ v: Int, frame: Int, count: Int) {
        let voice = voices + v
        let ramp = voice.pointee.gainRampLeft
        let reverbOn = effects.reverbIsOn, chorusOn = effects.chorusIsOn
        let sends = voice.pointee.sends, targets = voice.pointee.sendTargets, steps = voice.pointee.sendSteps
        let used = SIMD2<Float>(reverbOn ? 1 : 0, chorusOn ? 1 : 0)
        if (sends * used) != .zero || (targets * used) != .zero {
            let mix = VoiceJobs.Mix(frame: Int32(frame), count: Int32(count), offset: Int32(frame - voice.pointee.blockStart),
                                    ramp: Int32(clamping: ramp), gainLeft: sends.x * used.x, gainRight: sends.y * used.y,
                                    stepLeft: steps.x * used.x, stepRight: steps.y * used.y,
                                    targetLeft: targets.x * used.x, targetRight: targets.y * used.y)
            if jobs.recordSends(mix, voice: v) { runJobs() }
        }
        if count >= ramp {
            voice.pointee.sends = targets
            voice.pointee.sendSteps = .zero
        } else {
            voice.pointee.sends += Float(count) * steps
        }
    }

    /// Adds the effects of the chunk's first `count` frames into `left` and `right` (after the dry sum).
    func addEffects(to left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        let sent = jobs.sumSends(into: effects.reverbBus, effects.chorusBus, count: count)
        guard effects.areOn else { return }
        if !sent {
            effects.reverbBus.update(repeating: 0, count: count)
            effects.chorusBus.update(repeating: 0, count: count)
        }
        effects.add(to: left, right, count: count)
    }

    /// A system reset's part: the effects emptied at the current frame (the chunk so far is finished first, with
    /// them as they were).
    func resetEffects() {
        if effects.areOn && output != nil && now > 0 { finishChunk(now) }
        effects.clear()
    }
}

extension Voice {
    /// Aims the reverb and chorus sends at the generators' values (tenths of a percent, limited to 0...1 as
    /// FluidSynth limits them), gliding there over the gain ramp `updateParameters` starts.
    mutating func aimSends(reverb: Float, chorus: Float) {
        sendTargets = SIMD2(min(max(reverb / 1000, 0), 1), min(max(chorus / 1000, 0), 1))
        sendSteps = (sendTargets - sends) / Float(SoundFontEngine.blockSize)
    }

    /// Puts the sends at their targets at once (a voice's start).
    mutating func settleSends() {
        sends = sendTargets
        sendSteps = .zero
    }
}
