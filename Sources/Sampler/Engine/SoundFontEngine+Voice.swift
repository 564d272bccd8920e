import EngineKernels
import Foundation
import SoundFontFile

/// A voice's life in the pool: its start from a region, its 64-sample control steps (envelopes, LFOs,
/// modulators, filter), whose sample work (4-point interpolation, amplitude ramp, filter, mix) `VoiceJobs` does.
extension SoundFontEngine {
    /// The per-block work of fluid_rvoice_write before the samples: pending note-off, envelopes,
    /// LFOs, amplitude target (or the voice's end), pitch increment, filter coefficients.
    func controlBlock(_ v: Int) {
        let voice = voices + v
        if voice.pointee.noteOffPending && voice.pointee.ticks >= minimumNoteTicks { release(v) }
        let ticks = voice.pointee.ticks
        voice.pointee.ticks += Self.blockSize

        voice.pointee.volume.step()
        if voice.pointee.volume.section == Envelope.finished { statuses[v].active = false; return }
        voice.pointee.modulation.step()
        voice.pointee.modLFO.step(ticks: ticks)
        voice.pointee.vibLFO.step(ticks: ticks)

        let modLFO = voice.pointee.modLFO.value, vibLFO = voice.pointee.vibLFO.value
        let envelope = voice.pointee.volume.value
        let lfoCentibels = modLFO * -voice.pointee.modLFOToVolume
        voice.pointee.sounding = true
        var target: Float
        switch voice.pointee.volume.section {
        case Envelope.delay:
            voice.pointee.sounding = false  // silent, and the sample does not move (FluidSynth 2.3)
            return
        case Envelope.attack:
            target = math.cb2amp(voice.pointee.attenuation) * math.cb2amp(lfoCentibels) * envelope
        default:
            target = math.cb2amp(voice.pointee.attenuation) * math.cb2amp(960 * (1 - envelope) + lfoCentibels)
            // The voice ends when even its loudest can no longer reach the noise floor (FluidSynth's 2e-7).
            if math.cb2amp(voice.pointee.attenuation) * envelope < 2e-7 { statuses[v].active = false; return }
        }
        voice.pointee.ampIncrement = (target - voice.pointee.amp) / Float(Self.blockSize)
        if voice.pointee.amp == 0 && voice.pointee.ampIncrement == 0 { voice.pointee.sounding = false; return }

        let modEnvelope = voice.pointee.modulation.section == Envelope.attack
            ? math.convex(127 * voice.pointee.modulation.value) : voice.pointee.modulation.value
        let cents = voice.pointee.pitch + modLFO * voice.pointee.modLFOToPitch + vibLFO * voice.pointee.vibLFOToPitch
            + modEnvelope * voice.pointee.modEnvToPitch
        var increment = Double(math.ct2hzReal(cents)) / voice.pointee.rootPitchHz
        if increment == 0 { increment = 1.0 / 4_294_967_296 }
        voice.pointee.phaseIncrement = increment
        voice.pointee.looping = voice.pointee.sampleMode == 1
            || (voice.pointee.sampleMode == 3 && voice.pointee.volume.section < Envelope.release)
        voice.pointee.filter.update(cents: voice.pointee.filterCutoff + modLFO * voice.pointee.modLFOToFilter
                                    + modEnvelope * voice.pointee.modEnvToFilter, sampleRate: Float(sampleRate), math: math)
    }

    /// The sample side's work for the block `controlBlock` just set up: where it reads, its amplitude ramp
    /// and filter glide. Moves the control side's phase, amplitude and coefficients to the block's end, and
    /// returns the block with the samples it makes (`count`: fewer than 64 when the sample ends in it).
    func planBlock(_ v: Int) -> SeqplayBlock {
        let voice = voices + v
        let f = voice.pointee.filter
        var block = SeqplayBlock(
            phase: voice.pointee.phase, increment: voice.pointee.phaseIncrement, count: 0,
            start: Int32(voice.pointee.start), last: Int32(voice.pointee.end - 1),
            loopStart: Int32(voice.pointee.loopStart), loopEnd: Int32(voice.pointee.loopEnd),
            looping: voice.pointee.looping ? 1 : 0, hasLooped: voice.pointee.hasLooped ? 1 : 0,
            amp: voice.pointee.amp, ampIncrement: voice.pointee.ampIncrement,
            a1: f.a1, a2: f.a2, b02: f.b02, b1: f.b1, a1Incr: f.a1Incr, a2Incr: f.a2Incr, b02Incr: f.b02Incr, b1Incr: f.b1Incr,
            incrCount: Int32(f.incrCount), compensate: f.compensate ? 1 : 0)
        var looped: Int32 = 0
        voice.pointee.phase = seqplay_plan_block(&block, Int32(Self.blockSize), &looped)
        voice.pointee.hasLooped = looped != 0
        voice.pointee.amp += Float(Self.blockSize) * voice.pointee.ampIncrement
        voice.pointee.filter.endGlide()
        return block
    }

    /// fluid_rvoice_noteoff: both envelopes to their release, keeping the sound continuous.
    func release(_ v: Int) {
        let voice = voices + v
        voice.pointee.noteOffPending = false
        statuses[v].released = true
        if voice.pointee.volume.section == Envelope.attack && voice.pointee.volume.value > 0 {
            let lfo = voice.pointee.modLFO.value * -voice.pointee.modLFOToVolume
            let amp = voice.pointee.volume.value * math.cb2amp(lfo)
            let value = -((-200 / Float(M_LN10) * log(amp) - lfo) / 960 - 1)
            voice.pointee.volume.value = min(max(value, 0), 1)
        }
        if voice.pointee.modulation.section == Envelope.attack && voice.pointee.modulation.value > 0 {
            voice.pointee.modulation.value = min(max(math.convex(127 * voice.pointee.modulation.value), 0), 1)
        }
        voice.pointee.volume.enter(Envelope.release)
        voice.pointee.modulation.enter(Envelope.release)
    }

    /// Starts voice `v` (stopping the note it played, if any) at the current frame, playing `region` of `banks[bank]`.
    func startVoice(_ v: Int, region: Region, bank: Int, channel: Int, key: Int, velocity: Int, note: UInt64) {
        let gens = generatorValues + v * Gen.count
        let font = banks[bank]
        font.generators.withUnsafeBufferPointer { table in
            gens.update(from: table.baseAddress! + region.generatorBase, count: Gen.count)
        }
        // The channel's RPN tuning and NRPN offsets (fluid_voice_init takes them as each generator's `nrpn`).
        let offsets = generatorOffsets + channel * Gen.count
        for g in 0..<Gen.count { gens[g] += offsets[g] }
        let header = font.hydra.samples[region.sample]
        let sampleCount = font.hydra.sampleData.count
        var voice = Voice()
        voice.region = region
        voice.bank = bank
        voice.actualKey = gens[Gen.keynum] >= 0 ? Int(gens[Gen.keynum]) : key
        voice.actualVelocity = gens[Gen.velocity] > 0 ? Int(gens[Gen.velocity]) : velocity
        voice.exclusiveClass = Int(gens[Gen.exclusiveClass])
        voice.sampleMode = Int(gens[Gen.sampleModes]) & 3
        if voice.sampleMode == 2 { voice.sampleMode = 0 }

        // Sample points with the offsets, kept inside the sample (fluid_rvoice_check_sample_sanity).
        let start = header.start + Int(gens[Gen.startOffset]) + 32768 * Int(gens[Gen.startCoarseOffset])
        let end = header.end + Int(gens[Gen.endOffset]) + 32768 * Int(gens[Gen.endCoarseOffset])
        let loopStart = header.loopStart + Int(gens[Gen.loopStartOffset]) + 32768 * Int(gens[Gen.loopStartCoarseOffset])
        let loopEnd = header.loopEnd + Int(gens[Gen.loopEndOffset]) + 32768 * Int(gens[Gen.loopEndCoarseOffset])
        let sampleEnd = min(header.end, sampleCount)
        voice.start = min(max(start, header.start), max(header.start, sampleEnd - 1))
        voice.end = min(max(end, voice.start + 1), sampleEnd)
        voice.loopStart = min(max(loopStart, voice.start), voice.end)
        voice.loopEnd = min(max(loopEnd, voice.loopStart), voice.end)
        if voice.loopEnd - voice.loopStart < 2 { voice.sampleMode = 0 }
        if voice.end <= voice.start || voice.end > sampleCount { return }
        voice.phase = Double(voice.start)
        voice.nextBoundary = now
        voice.mixedTo = now
        voice.freshHistory = true
        if statuses[v].active { stopVoice(v) }

        // Root key and the nominal pitch (GEN_PITCH): scale tuning around the root.
        let rootKey: Float = gens[Gen.overridingRootKey] > -1 ? gens[Gen.overridingRootKey] * 100
            : Float(header.originalKey > 127 ? 60 : header.originalKey) * 100
        voice.rootPitchHz = Double(math.ct2hzReal(rootKey - Float(header.correction))) * sampleRate / Double(max(header.sampleRate, 1))
        gens[Gen.pitch] = gens[Gen.scaleTuning] * (Float(voice.actualKey) - rootKey / 100) + rootKey
        voice.filter.startup = true
        voices[v] = voice
        statuses[v] = VoiceStatus(note: note, channel: UInt8(channel), key: UInt8(key), active: true)
        computeModulators(v)
        updateParameters(v, envelopes: true)
        voices[v].gainLeft = voices[v].targetLeft
        voices[v].gainRight = voices[v].targetRight
        voices[v].gainLeftStep = 0
        voices[v].gainRightStep = 0
        voices[v].gainRampLeft = 0
        voices[v].settleSends()
        nextControl[v] = nextControlFrame(of: v)
    }

    /// Re-evaluates the modulators of every voice on `channel` (playing `key`, when given) after a controller moved.
    func updateModulators(channel: Int, key: Int? = nil) {
        for v in 0..<polyphony where statuses[v].isOn(channel: channel) && (key == nil || Int(statuses[v].key) == key) {
            computeModulators(v)
            updateParameters(v, envelopes: false)
        }
    }

    /// Sums the region's modulators (fluid_mod_get_value) into the voice's modulator slots.
    func computeModulators(_ v: Int) {
        let sums = modulatorSums + v * Gen.count
        sums.update(repeating: 0, count: Gen.count)
        let region = voices[v].region
        let channel = Int(statuses[v].channel)
        banks[voices[v].bank].modulators.withUnsafeBufferPointer { table in
            for m in region.modulatorStart..<(region.modulatorStart + region.modulatorCount) {
                let modulator = table[m]
                if modulator.isIdentical(to: EngineModulator.velocityToFilter) { continue }  // FluidSynth evaluates it as 0
                guard modulator.source & 0xFF != 0 else { continue }  // no primary source: 0
                var value = modulator.amount * sourceValue(modulator.source, voice: v, channel: channel)
                if modulator.amountSource & 0xFF != 0 { value *= sourceValue(modulator.amountSource, voice: v, channel: channel) }
                if modulator.transform == 2 { value = abs(value) }
                sums[modulator.destination] += value
            }
        }
    }

    func sourceValue(_ source: UInt16, voice v: Int, channel: Int) -> Float {
        let index = Int(source & 0x7F)
        var range: Float = 128
        let value: Float
        if source & 0x80 != 0 {
            value = Float(controllers[channel * 128 + index])
        } else {
            switch index {
            case 0: value = range
            case 2: value = Float(voices[v].actualVelocity)
            case 3: value = Float(voices[v].actualKey)
            case 10: value = Float(keyPressures[channel * 128 + Int(statuses[v].key)])
            case 13: value = Float(channels[channel].pressure)
            case 14: value = Float(channels[channel].pitchBend); range = 16384
            case 16: value = Float(channels[channel].pitchSensitivity)
            default: return 0
            }
        }
        return math.transform(value, source: source, range: range)
    }

    /// Derives the voice's synthesis parameters from generators + modulators (fluid_voice_update_param);
    /// envelopes and LFO timing only at the start (they are not real-time in FluidSynth either, once running).
    func updateParameters(_ v: Int, envelopes: Bool) {
        let gens = generatorValues + v * Gen.count, sums = modulatorSums + v * Gen.count
        @inline(__always) func value(_ g: Int) -> Float { gens[g] + sums[g] }
        let voice = voices + v
        closeSegment(v)  // the pan glide below starts at the current frame
        voice.pointee.attenuation = min(max(value(Gen.attenuation), 0), 1440)
        voice.pointee.pitch = value(Gen.pitch) + 100 * value(Gen.coarseTune) + value(Gen.fineTune)
        voice.pointee.filterCutoff = min(max(value(Gen.filterFc), 1500), 13500)
        voice.pointee.filter.setQ(centibels: min(max(value(Gen.filterQ), 0), 960))
        voice.pointee.modLFOToPitch = min(max(value(Gen.modLfoToPitch), -12000), 12000)
        voice.pointee.vibLFOToPitch = min(max(value(Gen.vibLfoToPitch), -12000), 12000)
        voice.pointee.modEnvToPitch = min(max(value(Gen.modEnvToPitch), -12000), 12000)
        voice.pointee.modLFOToFilter = min(max(value(Gen.modLfoToFilterFc), -12000), 12000)
        voice.pointee.modEnvToFilter = min(max(value(Gen.modEnvToFilterFc), -12000), 12000)
        voice.pointee.modLFOToVolume = min(max(value(Gen.modLfoToVolume), -960), 960)
        let pan = value(Gen.pan)
        voice.pointee.targetLeft = SynthMath.pan(pan, left: true)
        voice.pointee.targetRight = SynthMath.pan(pan, left: false)
        voice.pointee.gainLeftStep = (voice.pointee.targetLeft - voice.pointee.gainLeft) / Float(Self.blockSize)
        voice.pointee.gainRightStep = (voice.pointee.targetRight - voice.pointee.gainRight) / Float(Self.blockSize)
        voice.pointee.gainRampLeft = Self.blockSize
        voice.pointee.aimSends(reverb: value(Gen.reverbSend), chorus: value(Gen.chorusSend))
        guard envelopes else { return }

        let rate = Float(sampleRate), block = Float(Self.blockSize)
        func delayBlocks(_ tc: Float) -> Int { Int(rate * SynthMath.tc2secDelay(min(max(tc, -12000), 5000)) / block) }
        func attackBlocks(_ tc: Float) -> Int { Int(rate * SynthMath.tc2secAttack(min(max(tc, -12000), 8000)) / block) }
        func holdDecayBlocks(_ base: Int, _ keyTo: Int, decay: Bool) -> Int {
            var timecents = value(base) + value(keyTo) * (60 - Float(voice.pointee.actualKey))
            if decay { timecents = min(timecents, 8000) } else {
                timecents = min(timecents, 5000)
                if timecents <= -32768 { return 0 }
            }
            timecents = max(timecents, -12000)
            return Int(rate * exp2(timecents / 1200) / block + 0.5)
        }
        func configure(_ envelope: inout Envelope, delay: Int, attack: Int, hold: Int, holdKey: Int, decay: Int, decayKey: Int,
                       sustain: Int, release: Int, minimumRelease: Float, releaseMax: Float) {
            envelope = Envelope()
            envelope.set(Envelope.delay, count: delayBlocks(value(delay)), coeff: 0, increment: 0, min: -1, max: 1)
            let attackCount = 1 + attackBlocks(value(attack))
            envelope.set(Envelope.attack, count: attackCount, coeff: 1, increment: 1 / Float(attackCount), min: -1, max: 1)
            envelope.set(Envelope.hold, count: holdDecayBlocks(hold, holdKey, decay: false), coeff: 1, increment: 0, min: -1, max: 2)
            let level = min(max(1 - 0.001 * value(sustain), 0), 1)
            let decayCount = holdDecayBlocks(decay, decayKey, decay: true)
            envelope.set(Envelope.decay, count: decayCount, coeff: 1, increment: decayCount > 0 ? -1 / Float(decayCount) : 0, min: level, max: 2)
            envelope.set(Envelope.sustain, count: Int(Int32.max), coeff: 1, increment: 0, min: -1, max: 2)
            let releaseCount = 1 + attackBlocks(max(value(release), minimumRelease))
            envelope.set(Envelope.release, count: releaseCount, coeff: 1, increment: -1 / Float(releaseCount), min: 0, max: releaseMax)
            envelope.set(Envelope.finished, count: Int(Int32.max), coeff: 0, increment: 0, min: -1, max: 1)
        }
        configure(&voice.pointee.volume, delay: Gen.volEnvDelay, attack: Gen.volEnvAttack, hold: Gen.volEnvHold, holdKey: Gen.keyToVolEnvHold,
                  decay: Gen.volEnvDecay, decayKey: Gen.keyToVolEnvDecay, sustain: Gen.volEnvSustain, release: Gen.volEnvRelease,
                  minimumRelease: -7200, releaseMax: 1)
        configure(&voice.pointee.modulation, delay: Gen.modEnvDelay, attack: Gen.modEnvAttack, hold: Gen.modEnvHold, holdKey: Gen.keyToModEnvHold,
                  decay: Gen.modEnvDecay, decayKey: Gen.keyToModEnvDecay, sustain: Gen.modEnvSustain, release: Gen.modEnvRelease,
                  minimumRelease: -12000, releaseMax: 2)
        func lfoIncrement(_ g: Int) -> Float { 4 * block * math.ct2hzReal(min(max(value(g), -16000), 4500)) / rate }
        voice.pointee.modLFO = LFO(value: 0, increment: lfoIncrement(Gen.modLfoFreq),
                                   delay: Int(rate * SynthMath.tc2secDelay(min(max(value(Gen.modLfoDelay), -12000), 5000))))
        voice.pointee.vibLFO = LFO(value: 0, increment: lfoIncrement(Gen.vibLfoFreq),
                                   delay: Int(rate * SynthMath.tc2secDelay(min(max(value(Gen.vibLfoDelay), -12000), 5000))))
    }
}

/// A voice's place in the pool, as the pool's scans read it (note-on and note-off, stealing, pedals,
/// controllers): kept apart from `Voice` in 16 bytes, so a scan of 256 voices reads 4 KB.
struct VoiceStatus {
    /// The number of the note the voice plays (notes are counted from 1: a lower number is older).
    var note: UInt64 = 0
    var channel: UInt8 = 0
    var key: UInt8 = 0
    var active = false
    var released = false
    var sustained = false
    var heldBySostenuto = false

    /// Whether the voice sounds on `channel`.
    @inline(__always) func isOn(channel: Int) -> Bool { active && Int(self.channel) == channel }

    /// Whether the voice sounds `key` on `channel` and is not released.
    @inline(__always) func plays(channel: Int, key: Int) -> Bool {
        active && Int(self.channel) == channel && Int(self.key) == key && !released
    }
}

/// One voice of the pool: where it is in its sample, its envelopes, LFOs, filter and gains.
struct Voice {
    var sounding = false
    var region = Region(keys: 0...0, velocities: 0...0, generatorBase: 0, modulatorStart: 0, modulatorCount: 0, sample: 0)
    /// The index in the engine's `banks` of the font `region` is from.
    var bank = 0
    var actualKey = 0
    var actualVelocity = 0
    var exclusiveClass = 0
    var sampleMode = 0
    var start = 0, end = 0, loopStart = 0, loopEnd = 0
    var looping = false
    var hasLooped = false
    /// The phase at the start of the next block (the control side's: `SeqplayBlock`).
    var phase: Double = 0
    var phaseIncrement: Double = 0
    var rootPitchHz: Double = 1
    var ticks = 0
    /// Chunk frames: where the current control block started and the next starts, where the sample ends
    /// in the current block (Int.max: not in it), and up to where the voice's mix has been recorded.
    var blockStart = 0, nextBoundary = 0, endFrame = Int.max, mixedTo = 0
    /// Whether the next block starts the filter from silence (a new note).
    var freshHistory = false
    var noteOffPending = false
    var volume = Envelope()
    var modulation = Envelope()
    var modLFO = LFO()
    var vibLFO = LFO()
    var amp: Float = 0
    var ampIncrement: Float = 0
    var attenuation: Float = 0
    var pitch: Float = 0
    var filterCutoff: Float = 13500
    var modLFOToPitch: Float = 0, vibLFOToPitch: Float = 0, modEnvToPitch: Float = 0
    var modLFOToFilter: Float = 0, modEnvToFilter: Float = 0, modLFOToVolume: Float = 0
    var filter = LowPassFilter()
    var gainLeft: Float = 0, gainRight: Float = 0, targetLeft: Float = 0, targetRight: Float = 0
    var gainLeftStep: Float = 0, gainRightStep: Float = 0
    var gainRampLeft = 0
    /// The reverb (x) and chorus (y) sends, 0...1, gliding as the pan gains do (`aimSends`).
    var sends = SIMD2<Float>(), sendTargets = SIMD2<Float>(), sendSteps = SIMD2<Float>()
}
