/// One instrument a loaded SoundFont offers: where it sits in the bank/program grid and which font
/// provides it.
///
/// Not `SoundFontContents.Preset` (`SoundFontFile`): that one is read from a file by seqplay's own
/// reader, before or without FluidSynth, and counts the preset's zones; this one is what a running
/// `Synthesizer` found in its font stack, and names the loaded font (its FluidSynth id) it comes from.
/// The control model's `FontState` (`Control`) lists its font's presets as these too.
public struct Preset: Hashable, Sendable {
    /// MIDI bank number (128 is the percussion bank in General MIDI fonts).
    public let bank: Int
    /// MIDI program number, 0...127.
    public let program: Int
    /// The preset's name as stored in the font.
    public let name: String
    /// The font that provides it.
    public let soundFont: SoundFontID

    public init(bank: Int, program: Int, name: String, soundFont: SoundFontID) {
        self.bank = bank; self.program = program; self.name = name; self.soundFont = soundFont
    }
}

/// Identifies a SoundFont loaded into a `Synthesizer` (FluidSynth's font id) and the file it came from.
public struct SoundFontID: Hashable, Sendable {
    /// FluidSynth's id for the font; ids are never reused within a synthesizer.
    public let id: Int
    /// The path the font was loaded from.
    public let path: String

    public init(id: Int, path: String) { self.id = id; self.path = path }
}

/// The preset a MIDI channel currently plays.
public struct ChannelProgram: Hashable, Sendable {
    /// FluidSynth's id of the font the preset comes from.
    public let soundFontID: Int
    public let bank: Int
    public let program: Int
}
