import CFluidSynth
import Foundation
import SoundFontFile

/// SoundFonts loaded once and played by any number of synthesizers, on any threads: what a batch of
/// renders needs, where loading FluidR3_GM (a fifth of a second) for every song would cost as much
/// as rendering it. A synthesizer given them (`Synthesizer.addSoundFonts`) plays exactly as one
/// that loaded the same files itself, in the same order; it starts from FluidSynth's initial state
/// as any new synthesizer does.
///
/// FluidSynth's fonts are read-only while synthesizers play them (presets, zones and sample data);
/// the fonts stay loaded as long as this object and every synthesizer given them exist.
///
/// Made for seqplay's engine (`init(paths:engine:)` with `.seqplay`), the fonts are read once into the
/// engine's `SoundFontBank`s and not loaded into FluidSynth at all (the engine answers for its presets):
/// the sample data is held once, not twice (and a file listed twice is read once).
// Why unchecked: the fonts are loaded in init and only read after; the engine banks are made once under `bankLock`.
public final class SharedSoundFonts: @unchecked Sendable {
    /// The files, in load order (later ones take priority).
    public let paths: [String]
    /// Holds the fonts (FluidSynth deletes a font with the synthesizer that loaded it).
    private let holder: Synthesizer

    /// Loads `paths` in order, each checked as `Synthesizer.loadSoundFont(at:)` does.
    public init(paths: [String]) throws(SoundFontError) {
        let loaded = try Self.load(paths, engine: .fluidsynth)
        holder = loaded.holder; fonts = loaded.fonts; banks = loaded.banks
        self.paths = paths
        isEngineOnly = false
    }

    /// Loads `paths` for samplers playing through `engine`: into FluidSynth in order, each checked as
    /// `Synthesizer.loadSoundFont(at:)` does; for `.seqplay`, into the engine's bank only.
    public init(paths: [String], engine: SamplerSettings.Engine) throws(SoundFontError) {
        let loaded = try Self.load(paths, engine: engine)
        holder = loaded.holder; fonts = loaded.fonts; banks = loaded.banks
        self.paths = paths
        isEngineOnly = engine == .seqplay
    }

    /// The holder with `paths` loaded into FluidSynth (nothing for `.seqplay`), its fonts, and the engine's banks for `.seqplay`.
    private static func load(_ paths: [String], engine: SamplerSettings.Engine) throws(SoundFontError)
        -> (holder: Synthesizer, fonts: [(pointer: OpaquePointer, id: SoundFontID)], banks: [SoundFontBank]?) {
        let holder: Synthesizer
        do throws(SynthesizerError) {
            holder = try Synthesizer(settings: SamplerSettings(reverb: .init(isEnabled: false), chorus: .init(isEnabled: false)))
        } catch {
            throw SoundFontError(path: paths.first ?? "", problem: .rejectedByFluidSynth(reason: "\(error)"))
        }
        if engine == .seqplay { return (holder, [], try SoundFontBank.stack(paths)) }
        for path in paths { try holder.loadSoundFont(at: path) }
        // Looked up once here: synthesizers on several threads take them at once, and each
        // fluid_synth_* call enters the holder's API (an unguarded counter and queue).
        let fonts = holder.withSynthBetweenCycles {
            holder.soundFonts.compactMap { font in
                fluid_synth_get_sfont_by_id(holder.synth, Int32(font.id)).map { ($0, font) }
            }
        }
        return (holder, fonts, nil)
    }

    /// True when the fonts were loaded for seqplay's engine alone (FluidSynth holds none of them).
    public let isEngineOnly: Bool

    /// The fonts in load order, with the IDs a synthesizer that loaded them itself would give them.
    fileprivate let fonts: [(pointer: OpaquePointer, id: SoundFontID)]

    private let bankLock = NSLock()
    private var banks: [SoundFontBank]?

    /// The font of highest priority (the last of `paths`) as seqplay's engine plays it (`engineBanks()`).
    public func engineBank() throws(SoundFontError) -> SoundFontBank {
        let banks = try engineBanks()
        return banks[banks.count - 1]
    }

    /// The fonts as seqplay's engine plays them (`SamplerSettings.Engine.seqplay`), one per path in the
    /// order of `paths` (a file listed twice is one bank, twice): read on first use, then shared by every
    /// engine on every thread.
    public func engineBanks() throws(SoundFontError) -> [SoundFontBank] {
        bankLock.lock()
        defer { bankLock.unlock() }
        if let banks { return banks }
        let banks = try SoundFontBank.stack(paths)
        self.banks = banks
        return banks
    }
}

extension SoundFontBank {
    /// The banks of `paths` in order, `known` (banks already read, by path) reused: a file listed twice is
    /// read once. Throws when there is no path, or for the first font that cannot be read.
    static func stack(_ paths: [String], known: [String: SoundFontBank] = [:]) throws(SoundFontError) -> [SoundFontBank] {
        guard !paths.isEmpty else { throw SoundFontError(path: "", problem: .unreadable("no SoundFont given")) }
        var read = known
        var banks: [SoundFontBank] = []
        for path in paths {
            if let bank = read[path] { banks.append(bank); continue }
            let bank = try SoundFontBank(path: path)
            read[path] = bank
            banks.append(bank)
        }
        return banks
    }
}

extension Synthesizer {
    /// Plays `shared`'s fonts as if loaded here in their order (on top of any loaded before).
    /// Call before rendering, not on the audio thread.
    public func addSoundFonts(_ shared: SharedSoundFonts) {
        defer { FluidSynthLog.forwardPendingMessages() }
        sharedFontHolders.append(shared)
        for (pointer, font) in shared.fonts {
            let id = withSynthBetweenCycles {
                let id = fluid_synth_add_sfont(synth, pointer)
                refreshFontStack()
                return id
            }
            guard id != FLUID_FAILED else { continue }
            sharedFonts.append(pointer)
            soundFonts.append(SoundFontID(id: Int(id), path: font.path))
        }
    }

    /// Takes the shared fonts out before the synthesizer is deleted (FluidSynth would delete them).
    /// A silent placeholder font goes in first, so the channels find a preset when the last real
    /// font leaves and FluidSynth does not warn about each of them.
    func removeSharedSoundFonts() {
        guard !sharedFonts.isEmpty else { return }
        if let placeholder = SilentPlaceholderFont.make() { fluid_synth_add_sfont(synth, placeholder) }
        for pointer in sharedFonts.reversed() { fluid_synth_remove_sfont(synth, pointer) }
        sharedFonts.removeAll()
    }
}

/// A font with one silent preset for every bank and program; deleted with its synthesizer.
private enum SilentPlaceholderFont {
    /// The name of the font and of its preset, for FluidSynth's messages.
    nonisolated(unsafe) static let name = UnsafePointer(strdup("silent placeholder")!)

    static func make() -> OpaquePointer? {
        guard let font = new_fluid_sfont({ _ in SilentPlaceholderFont.name }, { sfont, _, _ in
            fluid_sfont_get_data(sfont).map { OpaquePointer($0) }
        }, nil, nil, { sfont in
            if let preset = fluid_sfont_get_data(sfont) { delete_fluid_preset(OpaquePointer(preset)) }
            return delete_fluid_sfont(sfont)
        }) else { return nil }
        guard let preset = new_fluid_preset(font, { _ in SilentPlaceholderFont.name }, { _ in 0 }, { _ in 0 }, { _, _, _, _, _ in FLUID_OK }, { _ in }) else {
            delete_fluid_sfont(font)
            return nil
        }
        fluid_sfont_set_data(font, UnsafeMutableRawPointer(preset))
        return font
    }
}
