import CFluidSynth

extension Synthesizer {
    /// Applies `sound` between two render cycles: polyphony, gain and reverb/chorus on/off where
    /// they changed, interpolation, reverb and chorus parameters, drum channels (their presets
    /// re-chosen from bank 128, the others' from bank 0), and forced programs, which from now on
    /// ignore the channel's program changes and bank selects (and are selected again after a reset),
    /// and channel fonts, from which the channel's program changes pick. The bank-select mode is the
    /// one the synthesizer was made with. Throws if no loaded font has a forced program, or a channel
    /// font is not loaded.
    public func apply(_ sound: SamplerSettings) throws(SynthesizerError) {
        if sound.polyphony != polyphony { polyphony = sound.polyphony }
        if sound.gain != gain { gain = sound.gain }
        if (sound.reverb.isEnabled ?? true) != reverbEnabled { reverbEnabled = sound.reverb.isEnabled ?? true }
        if (sound.chorus.isEnabled ?? true) != chorusEnabled { chorusEnabled = sound.chorus.isEnabled ?? true }
        var fontIDs: [UInt8: Int32] = [:]
        for (channel, path) in sound.channelFonts {
            guard let font = soundFonts.first(where: { $0.path == path }) else { throw .fontNotLoaded(path) }
            fontIDs[channel] = Int32(font.id)
        }
        for (channel, forced) in sound.programs {
            try selectProgram(forced.program, bank: forced.bank, channel: channel)
        }
        withSynthBetweenCycles {
            if let interpolation = sound.interpolation {
                fluid_synth_set_interp_method(synth, -1, Int32(interpolation.rawValue))
            }
            setParameters(of: sound.reverb)
            setParameters(of: sound.chorus)
            if !(noteLimiter?.matches(sound) ?? (NoteLimiter.make(for: sound) == nil)) { noteLimiter = NoteLimiter.make(for: sound) }
            forcedPrograms.set(sound.programs, drums: sound.drumChannels, fonts: fontIDs)
            forcedPrograms.select(in: synth)
            publishAllChannels()
        }
        var applied = sound
        applied.bankSelect = settings.bankSelect
        applied.polyphony = polyphony
        settings = applied
    }

    /// Gives FluidSynth the reverb parameters `reverb` sets (not nil), leaving the others as they are.
    /// Between two render cycles only (`withSynthBetweenCycles`).
    func setParameters(of reverb: SamplerSettings.Reverb) {
        if let value = reverb.roomSize { fluid_synth_set_reverb_group_roomsize(synth, -1, value) }
        if let value = reverb.damping { fluid_synth_set_reverb_group_damp(synth, -1, value) }
        if let value = reverb.width { fluid_synth_set_reverb_group_width(synth, -1, value) }
        if let value = reverb.level { fluid_synth_set_reverb_group_level(synth, -1, value) }
    }

    /// Gives FluidSynth the chorus parameters `chorus` sets (not nil), leaving the others as they are.
    /// Between two render cycles only (`withSynthBetweenCycles`).
    func setParameters(of chorus: SamplerSettings.Chorus) {
        if let value = chorus.voices { fluid_synth_set_chorus_group_nr(synth, -1, Int32(clamping: value)) }
        if let value = chorus.level { fluid_synth_set_chorus_group_level(synth, -1, value) }
        if let value = chorus.speed { fluid_synth_set_chorus_group_speed(synth, -1, value) }
        if let value = chorus.depth { fluid_synth_set_chorus_group_depth(synth, -1, value) }
        if let value = chorus.type { fluid_synth_set_chorus_group_type(synth, -1, Int32(value.rawValue)) }
    }
}

/// The forced program, the drum channels and the font of each channel, read by the render thread
/// (which selects them again after a reset): storage allocated once, no allocation when read.
final class ForcedProgramTable {
    /// Per channel: forced program (-1 none), its bank, drum (1 drum, 0 melodic, -1 as FluidSynth has
    /// it: channel 10 drums), and the font its program changes pick from (-1 the font stack).
    private let program = UnsafeMutablePointer<Int32>.allocate(capacity: 16)
    private let bank = UnsafeMutablePointer<Int32>.allocate(capacity: 16)
    private let drum = UnsafeMutablePointer<Int32>.allocate(capacity: 16)
    private let font = UnsafeMutablePointer<Int32>.allocate(capacity: 16)

    init() {
        program.initialize(repeating: -1, count: 16)
        bank.initialize(repeating: 0, count: 16)
        drum.initialize(repeating: -1, count: 16)
        font.initialize(repeating: -1, count: 16)
    }

    deinit {
        program.deallocate()
        bank.deallocate()
        drum.deallocate()
        font.deallocate()
    }

    /// Whether `channel` (0-based) plays a forced program.
    func isForced(_ channel: UInt8) -> Bool { program[Int(channel & 15)] >= 0 }

    /// Whether `channel` (0-based) plays from a font of its own.
    func hasFont(_ channel: UInt8) -> Bool { font[Int(channel & 15)] >= 0 }

    /// Replaces the table (between render cycles).
    func set(_ programs: [UInt8: SamplerSettings.ForcedProgram], drums: Set<UInt8>?, fonts: [UInt8: Int32]) {
        for channel in 0..<16 {
            let forced = programs[UInt8(channel)]
            program[channel] = forced.map { Int32($0.program) } ?? -1
            bank[channel] = Int32(forced?.bank ?? 0)
            drum[channel] = drums.map { $0.contains(UInt8(channel)) ? 1 : 0 } ?? -1
            font[channel] = fonts[UInt8(channel)] ?? -1
        }
    }

    /// Selects `channel`'s current bank and program from its own font (after a program change).
    func selectFromFont(_ channel: UInt8, in synth: OpaquePointer) {
        let fontID = font[Int(channel & 15)]
        guard fontID >= 0 else { return }
        var sfont: Int32 = 0, bankNumber: Int32 = 0, programNumber: Int32 = 0
        fluid_synth_get_program(synth, Int32(channel), &sfont, &bankNumber, &programNumber)
        fluid_synth_program_select(synth, Int32(channel), fontID, bankNumber, programNumber)
    }

    /// Makes the drum channels drum channels again (their presets from bank 128, the others' from
    /// bank 0), selects every forced program again and the channel fonts' presets, as after a reset.
    func select(in synth: OpaquePointer) {
        // Plain counting loops: a generic range type met here for the first time would allocate its
        // metadata on the render thread.
        var channel: Int32 = 0
        while channel < 16 {
            let index = Int(channel)
            if drum[index] >= 0 {
                let isDrum = drum[index] == 1
                fluid_synth_set_channel_type(synth, channel, Int32((isDrum ? CHANNEL_TYPE_DRUM : CHANNEL_TYPE_MELODIC).rawValue))
                fluid_synth_bank_select(synth, channel, isDrum ? 128 : 0)
                fluid_synth_program_change(synth, channel, 0)
            }
            if program[index] >= 0 {
                fluid_synth_bank_select(synth, channel, bank[index])
                fluid_synth_program_change(synth, channel, program[index])
            }
            selectFromFont(UInt8(truncatingIfNeeded: channel), in: synth)
            channel += 1
        }
    }
}
