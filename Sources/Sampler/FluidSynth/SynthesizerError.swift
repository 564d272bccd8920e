import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// Why a `Synthesizer` could not be created or could not do what was asked.
public enum SynthesizerError: Error, Equatable {
    /// FluidSynth failed to create the named object.
    case creationFailed(String)
    /// FluidSynth rejected the value of the named setting (e.g. a sample rate out of range).
    case settingRejected(String)
    /// No loaded font has that bank and program.
    case noSuchPreset(bank: Int, program: Int, channel: Int)
    /// A channel font (`SamplerSettings.channelFonts`) that was not loaded.
    case fontNotLoaded(String)
}

extension SynthesizerError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .creationFailed(let object): return "FluidSynth could not create its \(object)"
        case .settingRejected(let setting): return "FluidSynth refused the value of \(setting)"
        case .noSuchPreset(let bank, let program, let channel):
            return "no loaded SoundFont has bank \(bank) program \(program) (asked for on channel \(channel + 1))"
        case .fontNotLoaded(let path): return "the channel font \(path) is not among the loaded SoundFonts"
        }
    }
}
