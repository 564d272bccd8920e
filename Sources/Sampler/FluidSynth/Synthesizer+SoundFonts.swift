import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// The font stack: loading, unloading, reloading and offsetting fonts, and the presets they hold.
extension Synthesizer {
    /// Loads an SF2/SF3 file after checking its structure; its presets take priority over those of
    /// fonts loaded earlier. Channels are re-assigned their presets from the new font stack.
    @discardableResult
    public func loadSoundFont(at path: String) throws(SoundFontError) -> SoundFontID {
        try SoundFontValidator.validate(path: path)
        FluidSynthLog.forwardPendingMessages()
        let id = withSynthBetweenCycles {
            let id = fluid_synth_sfload(synth, path, 1)
            refreshFontStack()
            publishAllChannels()
            return id
        }
        // What FluidSynth said while loading: a refusal's reason goes into the error, not the log.
        let messages = FluidSynthLog.takePendingMessages()
        guard id != FLUID_FAILED else {
            throw SoundFontError(path: path, problem: .rejectedByFluidSynth(reason: FluidSynthLog.firstError(in: messages)))
        }
        FluidSynthLog.log(messages)
        let font = SoundFontID(id: Int(id), path: path)
        soundFonts.append(font)
        return font
    }

    /// Unloads a font; channels using it are re-assigned presets from the remaining fonts.
    public func unloadSoundFont(_ font: SoundFontID) {
        guard soundFonts.contains(font) else { return }
        withSynthBetweenCycles {
            _ = fluid_synth_sfunload(synth, Int32(font.id), 1)
            refreshFontStack()
            publishAllChannels()
        }
        soundFonts.removeAll { $0 == font }
    }

    /// Loads `font` again from its file, keeping its id and its place in the stack (FluidSynth's
    /// `reload`); channels get their presets from the new contents. A file that fails the structural
    /// check leaves the font as it was; one FluidSynth then refuses leaves it gone (FluidSynth unloads
    /// it first).
    public func reloadSoundFont(_ font: SoundFontID) throws(SoundFontError) {
        guard soundFonts.contains(font) else { return }
        try SoundFontValidator.validate(path: font.path)
        FluidSynthLog.forwardPendingMessages()
        let result = withSynthBetweenCycles {
            let result = fluid_synth_sfreload(synth, Int32(font.id))
            refreshFontStack()
            publishAllChannels()
            return result
        }
        let messages = FluidSynthLog.takePendingMessages()
        guard result != FLUID_FAILED else {
            soundFonts.removeAll { $0 == font }
            throw SoundFontError(path: font.path, problem: .rejectedByFluidSynth(reason: FluidSynthLog.firstError(in: messages)))
        }
        FluidSynthLog.log(messages)
    }

    /// Offsets the banks of `font` by `offset` (FluidSynth's `load FILE 1 OFFSET`): its bank B plays as
    /// bank B + offset. Each channel then takes its bank and program again from the font stack, as
    /// FluidSynth's shell does after such a load.
    public func setBankOffset(_ offset: Int, of font: SoundFontID) {
        guard soundFonts.contains(font) else { return }
        withSynthBetweenCycles {
            _ = fluid_synth_set_bank_offset(synth, Int32(font.id), Int32(offset))
            _ = fluid_synth_program_reset(synth)
            refreshFontStack()
            publishAllChannels()
        }
    }

    /// Every preset of every loaded font, sorted by bank, program, then font priority (highest first).
    public var presets: [Preset] {
        var result: [Preset] = []
        withSynthBetweenCycles {
            for index in 0..<fluid_synth_sfcount(synth) {
                guard let sfont = fluid_synth_get_sfont(synth, UInt32(index)),
                      let font = soundFonts.first(where: { $0.id == Int(fluid_sfont_get_id(sfont)) })
                else { continue }
                fluid_sfont_iteration_start(sfont)
                while let preset = fluid_sfont_iteration_next(sfont) {
                    result.append(Preset(
                        bank: Int(fluid_preset_get_banknum(preset)),
                        program: Int(fluid_preset_get_num(preset)),
                        name: fluid_preset_get_name(preset).map { String(cString: $0) } ?? "",
                        soundFont: font))
                }
            }
        }
        // fluid_synth_get_sfont(0) is the top of the stack, so a stable sort keeps priority order.
        return result.enumerated().sorted {
            ($0.element.bank, $0.element.program, $0.offset) < ($1.element.bank, $1.element.program, $1.offset)
        }.map(\.element)
    }
}
