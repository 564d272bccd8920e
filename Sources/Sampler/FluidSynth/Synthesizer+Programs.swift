import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// What each channel plays: programs selected from the font stack, and the resets and notes-off of all channels.
extension Synthesizer {
    /// Makes `channel` (0-based) play `program` from `bank`, taken from the highest-priority font
    /// that has it; this works on the drum channel too. Throws if no loaded font has that preset.
    /// Takes effect at the next render.
    public func selectProgram(_ program: UInt8, bank: Int, channel: UInt8) throws(SynthesizerError) {
        // Searches the fonts themselves (read-only while they are loaded), never the synth: every
        // fluid_synth_* call, even a getter such as fluid_synth_sfcount, enters FluidSynth's API,
        // which with the thread-safe API off still reaps finished voices and commits the event
        // queue the render thread is filling (see `withSynthBetweenCycles`).
        for font in fontStack where fluid_sfont_get_preset(font.sfont, Int32(bank) - font.bankOffset, Int32(program)) != nil {
            perform(.selectProgram(channel: Int32(channel), font: font.id, bank: Int32(bank), program: Int32(program)))
            return
        }
        throw .noSuchPreset(bank: bank, program: Int(program), channel: Int(channel))
    }

    /// Makes `channel` (0-based) play `program` from `bank` of the font FluidSynth knows as `font`
    /// (its id, as `soundFonts` lists it), as FluidSynth's `select` does. Throws if that font has no
    /// such preset. Takes effect at the next render.
    public func selectProgram(_ program: UInt8, bank: Int, channel: UInt8, font fontID: Int) throws(SynthesizerError) {
        for font in fontStack where Int(font.id) == fontID && fluid_sfont_get_preset(font.sfont, Int32(bank) - font.bankOffset, Int32(program)) != nil {
            perform(.selectProgram(channel: Int32(channel), font: font.id, bank: Int32(bank), program: Int32(program)))
            return
        }
        throw .noSuchPreset(bank: bank, program: Int(program), channel: Int(channel))
    }

    /// Reads FluidSynth's font stack into `fontStack`. Call while holding the synth, after the stack changed.
    func refreshFontStack() {
        var stack: [(sfont: OpaquePointer, id: Int32, bankOffset: Int32)] = []
        for index in 0..<fluid_synth_sfcount(synth) {
            guard let sfont = fluid_synth_get_sfont(synth, UInt32(index)) else { continue }
            let id = fluid_sfont_get_id(sfont)
            stack.append((sfont, id, fluid_synth_get_bank_offset(synth, id)))
        }
        fontStack = stack
    }

    /// The preset `channel` currently plays (changes still queued included), or `nil` if it has none.
    public func program(onChannel channel: UInt8) -> ChannelProgram? {
        withSynthBetweenCycles {
            var fontID: Int32 = 0, bank: Int32 = 0, program: Int32 = 0
            guard fluid_synth_get_program(synth, Int32(channel), &fontID, &bank, &program) == FLUID_OK,
                  fluid_synth_get_channel_preset(synth, Int32(channel)) != nil
            else { return nil }
            return ChannelProgram(soundFontID: Int(fontID), bank: Int(bank), program: Int(program))
        }
    }

    /// Resets the synthesizer as a MIDI device would on receiving a reset message: `.system` is
    /// FluidSynth's system reset, the others send the standard GM / GS / XG reset SysEx, which also
    /// switches the bank-select mode. Takes effect at the next render.
    public func reset(_ kind: ResetKind) { perform(.reset(kind)) }

    /// Releases every sounding note (they fade out with their release envelopes), at the next render.
    public func allNotesOff() { perform(.allNotesOff) }

    /// Silences every voice, at the next render.
    public func allSoundsOff() { perform(.allSoundsOff) }
}
