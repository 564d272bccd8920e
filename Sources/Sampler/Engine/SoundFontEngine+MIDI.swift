import Foundation

/// MIDI as FluidSynth handles it: notes, controllers, programs, pitch bend and pressure, applied between samples.
extension SoundFontEngine {
    /// Applies one message now (between samples of a render call, or between calls).
    public func apply(_ message: Message) {
        switch message {
        case let .noteOn(channel, key, velocity):
            guard (0..<16).contains(channel), (0...127).contains(key) else { return }
            if velocity <= 0 { noteOff(channel: channel, key: key) } else { noteOn(channel: channel, key: key, velocity: min(velocity, 127)) }
        case let .noteOff(channel, key):
            guard (0..<16).contains(channel) else { return }
            noteOff(channel: channel, key: key)
        case let .controlChange(channel, controller, value):
            guard (0..<16).contains(channel), (0...127).contains(controller) else { return }
            // A forced program ignores the song's bank selects (as the FluidSynth path drops them).
            if (controller == 0 || controller == 32) && channels[channel].forcedProgram >= 0 { return }
            controlChange(channel: channel, controller: controller, value: min(max(value, 0), 127))
        case let .programChange(channel, program):
            guard (0..<16).contains(channel), channels[channel].forcedProgram < 0 else { return }
            channels[channel].program = min(max(program, 0), 127)
            selectPreset(channel)
        case let .pitchBend(channel, value):
            guard (0..<16).contains(channel) else { return }
            channels[channel].pitchBend = min(max(value, 0), 16383)
            updateModulators(channel: channel)
        case let .channelPressure(channel, value):
            guard (0..<16).contains(channel) else { return }
            channels[channel].pressure = min(max(value, 0), 127)
            updateModulators(channel: channel)
        case let .keyPressure(channel, key, value):
            guard (0..<16).contains(channel), (0...127).contains(key) else { return }
            keyPressures[channel * 128 + key] = UInt8(min(max(value, 0), 127))
            updateModulators(channel: channel, key: key)
        case let .systemExclusive(bytes):
            bytes.withUnsafeBufferPointer { systemExclusive(ResetKind.sysExBody(of: $0)) }
        case .systemReset:
            reset()
        }
    }

    /// Sends a system reset, or the GM, GS or XG reset message seqplay's FluidSynth path sends for it (`ResetKind`).
    public func reset(_ kind: ResetKind) {
        guard kind != .system else { return reset() }
        kind.sysExBody.withUnsafeBufferPointer { systemExclusive($0) }
    }

    /// A SysEx message without its F0/F7 as seqplay's FluidSynth path takes it: libfluidsynth 2.3 acts on GM
    /// (and GM2) System On, GS Reset and XG System On addressed to device 0 (its `synth.device-id`) or 0x7F (all),
    /// switching `bankSelect` to GM, GS or XG and resetting; any other GM, GS or XG reset (as the usual GS and
    /// XG ones, device 0x10) is a system reset there, the mode unchanged. Every reset ends as `reset()` does.
    func systemExclusive(_ body: UnsafeBufferPointer<UInt8>) {
        let toFluidSynth = body.count >= 4 && (body[1] == 0 || body[1] == 0x7F)
        if toFluidSynth && body.count == 4 && body[0] == 0x7E && body[2] == 0x09 && body[3] == 0x03 {  // GM2 System On
            bankSelect = .gm
            return reset()
        }
        guard let kind = ResetKind.deviceReset(body) else { return }
        if toFluidSynth {
            switch kind {
            case .generalMIDI: bankSelect = .gm
            case .rolandGS: bankSelect = .gs
            case .yamahaXG: bankSelect = .xg
            case .system: break
            }
        }
        reset()
    }

    /// Sends `controller` (all sound off 120, reset controllers 121, all notes off 123...) with value 0 to all 16 channels.
    public func applyToEveryChannel(controller: Int) {
        for channel in 0..<16 { apply(.controlChange(channel: channel, controller: controller, value: 0)) }
    }

    /// The bank and program `channel` (0...15) plays, as its bank selects and program changes left them;
    /// nil when no bank has a preset for them (even after the fallbacks). Read it between renders.
    public func program(onChannel channel: Int) -> (bank: Int, program: Int)? {
        guard (0..<16).contains(channel), channels[channel].preset >= 0 else { return nil }
        return (channels[channel].bank, channels[channel].program)
    }

    /// The index in `banks` of the font whose preset `channel` (0...15) plays; nil when it plays none.
    /// Read it between renders.
    public func bankIndex(onChannel channel: Int) -> Int? {
        guard (0..<16).contains(channel), channels[channel].preset >= 0 else { return nil }
        return channels[channel].bankIndex
    }

    /// Sets how the channels (0-based) choose their presets beyond MIDI, as the FluidSynth path does with
    /// `SamplerSettings`' drum channels, forced programs and channel fonts: `drums` are the drum channels
    /// (their program changes pick kits from bank 128; nil: channel 10 alone), again after every reset
    /// (XG bank selects change them until then), a channel of `programs` plays
    /// that program whatever the song's program changes and bank selects say, and a channel of `fonts`
    /// plays a program change's preset from that index of `banks` when that font has exactly its bank and
    /// program (else from the stack, as any channel). Each channel's program is selected again as after a
    /// reset (the drum channels' bank 128, the others' bank 0, program 0, or the forced one), and so after
    /// every later `reset()`. Between renders; indexes outside `banks` are ignored.
    public func setChannels(drums: Set<UInt8>?, programs: [UInt8: SamplerSettings.ForcedProgram], fonts: [UInt8: Int]) {
        for channel in 0..<16 {
            let forced = programs[UInt8(channel)]
            channels[channel].isDrumByDefault = drums?.contains(UInt8(channel)) ?? (channel == 9)
            channels[channel].isDrum = channels[channel].isDrumByDefault
            channels[channel].forcedProgram = forced.map { Int($0.program) } ?? -1
            channels[channel].forcedBank = forced?.bank ?? 0
            channels[channel].ownBank = fonts[UInt8(channel)].flatMap { banks.indices.contains($0) ? $0 : nil } ?? -1
            selectInitialProgram(channel)
        }
    }

    /// A system reset: every voice silenced, every channel's controllers, program, bank and drum setting as at
    /// start (`bankSelect` stays as it is, as in FluidSynth), the reverb and chorus emptied.
    public func reset() {
        resetEffects()
        for v in 0..<polyphony where statuses[v].active { stopVoice(v) }
        for channel in 0..<16 { resetChannel(channel, program: true) }
    }

    func resetChannel(_ channel: Int, program: Bool) {
        let cc = controllers + channel * 128
        cc.initialize(repeating: 0, count: 128)
        cc[7] = 100; cc[10] = 64; cc[11] = 127
        cc[101] = 127; cc[100] = 127; cc[99] = 127; cc[98] = 127  // no RPN or NRPN selected
        (keyPressures + channel * 128).update(repeating: 0, count: 128)
        (generatorOffsets + channel * Gen.count).update(repeating: 0, count: Gen.count)
        channels[channel].nrpnSelect = 0
        channels[channel].nrpnActive = false
        channels[channel].pitchBend = 8192
        channels[channel].pitchSensitivity = 2
        channels[channel].pressure = 0
        if program {
            channels[channel].isDrum = channels[channel].isDrumByDefault
            selectInitialProgram(channel)
        }
    }

    /// Program 0 of bank 128 (a drum channel) or 0, or the forced program: a channel's program after a reset.
    func selectInitialProgram(_ channel: Int) {
        let forced = channels[channel].forcedProgram >= 0
        channels[channel].program = forced ? channels[channel].forcedProgram : 0
        channels[channel].bank = forced ? channels[channel].forcedBank : channels[channel].isDrum ? 128 : 0
        selectPreset(channel)
    }

    /// Picks the preset of `channel`'s bank and program as FluidSynth 2.3's program change does: from the
    /// last bank of the stack that has it (a drum channel's from bank 128 whatever its bank select said);
    /// failing that a kit falls back to program 0 of bank 128, a melodic preset to the same program of
    /// bank 0, then to program 0 of bank 0. A channel with a font of its own then takes the preset of its
    /// bank and program from that font when it has exactly those (as `fluid_synth_program_select`).
    func selectPreset(_ channel: Int) {
        let program = channels[channel].program, selected = channels[channel].bank
        let bank = channels[channel].isDrum ? 128 : selected
        var found = findPreset(bank: bank, program: program)
        if found == nil {
            found = bank == 128 ? findPreset(bank: 128, program: 0) : findPreset(bank: 0, program: program) ?? findPreset(bank: 0, program: 0)
        }
        let own = channels[channel].ownBank
        if own >= 0, let preset = banks[own].exactPresetIndex(bank: selected, program: program) { found = (own, preset) }
        channels[channel].bankIndex = found?.bank ?? 0
        channels[channel].preset = found?.preset ?? -1
    }

    /// The preset of `bank`/`program` in the last bank of the stack that has it, and that bank's index.
    private func findPreset(bank: Int, program: Int) -> (bank: Int, preset: Int)? {
        var index = banks.count - 1
        while index >= 0 {
            if let preset = banks[index].exactPresetIndex(bank: bank, program: program) { return (index, preset) }
            index -= 1
        }
        return nil
    }

    func controlChange(channel: Int, controller: Int, value: Int) {
        let cc = controllers + channel * 128
        cc[controller] = UInt8(value)
        switch controller {
        case 0:  // bank select MSB, as `bankSelect` says (fluid_channel_set_bank_msb)
            switch bankSelect {
            case .gm: break
            case .xg: channels[channel].isDrum = value >= 120
            case .gs: if !channels[channel].isDrum { channels[channel].bank = value }
            case .mma: if !channels[channel].isDrum { channels[channel].bank = value << 7 | channels[channel].bank & 0x7F }
            }
        case 32:  // bank select LSB (fluid_channel_set_bank_lsb)
            switch bankSelect {
            case .gm, .gs: break
            case .xg: channels[channel].bank = value
            case .mma: channels[channel].bank = channels[channel].bank & ~0x7F | value
            }
        case 6:  // data entry MSB: the selected RPN or SoundFont NRPN
            dataEntry(channel: channel, value: value)
        case 98...101:  // NRPN and RPN numbers
            selectParameter(channel: channel, controller: controller, value: value)
        case 66:  // sostenuto: the notes sounding when it is pressed are held past their note-off until it is released
            if value >= 64 {
                channels[channel].sostenutoOrder = noteCounter + 1
            } else {
                for v in 0..<polyphony where statuses[v].isOn(channel: channel) && statuses[v].heldBySostenuto {
                    statuses[v].heldBySostenuto = false
                    noteOffVoice(v)
                }
            }
        case 64:
            if value < 64 {
                for v in 0..<polyphony where statuses[v].isOn(channel: channel) && statuses[v].sustained {
                    statuses[v].sustained = false
                    noteOffVoice(v)
                }
            }
        case 120:  // all sound off
            for v in 0..<polyphony where statuses[v].isOn(channel: channel) { stopVoice(v) }
        case 121:  // reset all controllers
            resetChannel(channel, program: false)
            updateModulators(channel: channel)
        case 123:  // all notes off
            for v in 0..<polyphony where statuses[v].isOn(channel: channel) && !statuses[v].released { noteOff(voice: v) }
        default:
            updateModulators(channel: channel)
        }
    }

    func noteOff(channel: Int, key: Int) {
        for v in 0..<polyphony where statuses[v].plays(channel: channel, key: key) { noteOff(voice: v) }
    }

    /// A note-off for one voice: held by the sostenuto pedal (when it started before the pedal went down),
    /// by the sustain pedal, or released (fluid_voice_noteoff).
    func noteOff(voice v: Int) {
        let channel = Int(statuses[v].channel)
        if controllers[channel * 128 + 66] >= 64 && statuses[v].note < channels[channel].sostenutoOrder {
            statuses[v].heldBySostenuto = true
            return
        }
        if controllers[channel * 128 + 64] >= 64 { statuses[v].sustained = true; return }
        noteOffVoice(v)
    }

    /// Releases voice `v`, or marks it to be released once it has sounded 10 ms (FluidSynth's minimum note length).
    func noteOffVoice(_ v: Int) {
        statuses[v].released = true
        if voices[v].ticks < minimumNoteTicks { voices[v].noteOffPending = true } else { release(v) }
    }


    func noteOn(channel: Int, key: Int, velocity: Int) {
        // A new note on a sounding key releases the old one first (FluidSynth's release of the same note).
        for v in 0..<polyphony where statuses[v].plays(channel: channel, key: key) {
            statuses[v].sustained = false
            statuses[v].heldBySostenuto = false
            noteOffVoice(v)
        }
        let preset = channels[channel].preset, bankIndex = channels[channel].bankIndex
        guard preset >= 0 else { return }
        noteCounter += 1
        let note = noteCounter
        var exclusive = false
        let font = banks[bankIndex]
        for r in font.presetRegions[preset] {
            let region = font.regions[r]
            guard region.keys.contains(key), region.velocities.contains(velocity) else { continue }
            let v = freeVoice()
            startVoice(v, region: region, bank: bankIndex, channel: channel, key: key, velocity: velocity, note: note)
            exclusive = exclusive || voices[v].exclusiveClass != 0
        }
        // Exclusive class: a new voice stops older voices of its class on the channel (fluid_voice_kill_excl).
        // (Only this note's voices have its number, so without an exclusive class among them nothing to do.)
        guard exclusive else { return }
        for v in 0..<polyphony where statuses[v].active && statuses[v].note == note && voices[v].exclusiveClass != 0 {
            let excl = voices[v].exclusiveClass
            for other in 0..<polyphony where statuses[other].isOn(channel: channel)
                && voices[other].exclusiveClass == excl && statuses[other].note != note {
                let fast = Int(sampleRate * Double(SynthMath.tc2secAttack(-7200)) / Double(Self.blockSize))
                voices[other].volume.set(Envelope.release, count: 1 + fast, coeff: 1, increment: -1 / Float(1 + fast), min: 0, max: 1)
                let modRelease = Int(sampleRate * Double(SynthMath.tc2secAttack(-200)) / Double(Self.blockSize))
                voices[other].modulation.set(Envelope.release, count: 1 + modRelease, coeff: 1, increment: -1 / Float(1 + modRelease), min: 0, max: 2)
                statuses[other].sustained = false
                release(other)
            }
        }
    }
}

/// A MIDI channel's state beside its 128 controllers.
struct Channel {
    var program = 0
    var bank = 0
    /// The preset played: its index in the font `banks[bankIndex]` (-1: none).
    var preset = -1
    var bankIndex = 0
    /// Whether the channel plays kits (its program changes pick from bank 128; GS and MMA bank selects ignored),
    /// and whether it does after a reset (channel 10, or as `setChannels` says).
    var isDrum = false
    var isDrumByDefault = false
    /// The forced program (-1: none) and its bank: program changes and bank selects are ignored.
    var forcedProgram = -1
    var forcedBank = 0
    /// The index in `banks` of the channel's own font (-1: none), tried first for each program change.
    var ownBank = -1
    var pitchBend = 8192
    var pitchSensitivity = 2
    var pressure = 0
    /// The generator a SoundFont NRPN selects, and whether data entry goes to an NRPN (not an RPN).
    var nrpnSelect = 0
    var nrpnActive = false
    /// Voices of notes numbered below this are held by the sostenuto pedal (the next note's number when it went down).
    var sostenutoOrder: UInt64 = 0
}
