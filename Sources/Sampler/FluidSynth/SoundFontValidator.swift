import SoundFontFile

/// Checks a SoundFont's RIFF structure before FluidSynth sees it (FluidSynth has crashed on
/// malformed files); the checks are `SoundFontStructure`'s.
enum SoundFontValidator {
    static func validate(path: String) throws(SoundFontError) {
        _ = try SoundFontStructure(path: path)
    }
}
