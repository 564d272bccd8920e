import AudioFiles
import SoundFontFile

/// SoundFont generator operators (SoundFont 2.04, section 8.1.2) the engine reads by name.
enum Gen {
    static let startOffset = 0, endOffset = 1, loopStartOffset = 2, loopEndOffset = 3, startCoarseOffset = 4
    static let modLfoToPitch = 5, vibLfoToPitch = 6, modEnvToPitch = 7, filterFc = 8, filterQ = 9
    static let modLfoToFilterFc = 10, modEnvToFilterFc = 11, endCoarseOffset = 12, modLfoToVolume = 13
    static let chorusSend = 15, reverbSend = 16, pan = 17
    static let modLfoDelay = 21, modLfoFreq = 22, vibLfoDelay = 23, vibLfoFreq = 24
    static let modEnvDelay = 25, modEnvAttack = 26, modEnvHold = 27, modEnvDecay = 28, modEnvSustain = 29, modEnvRelease = 30
    static let keyToModEnvHold = 31, keyToModEnvDecay = 32
    static let volEnvDelay = 33, volEnvAttack = 34, volEnvHold = 35, volEnvDecay = 36, volEnvSustain = 37, volEnvRelease = 38
    static let keyToVolEnvHold = 39, keyToVolEnvDecay = 40, instrument = 41, keyRange = 43, velRange = 44
    static let loopStartCoarseOffset = 45, keynum = 46, velocity = 47, attenuation = 48, loopEndCoarseOffset = 50
    static let coarseTune = 51, fineTune = 52, sampleID = 53, sampleModes = 54, scaleTuning = 56, exclusiveClass = 57
    static let overridingRootKey = 58
    /// Generator slots per voice (operators 0...59, plus 60 used by the engine for the nominal pitch, as FluidSynth's GEN_PITCH).
    static let count = 61
    static let pitch = 60

    /// The default value of every generator (SoundFont 2.04, section 8.1.3; FluidSynth's table).
    static let defaults: [Float] = {
        var values = [Float](repeating: 0, count: count)
        for index in [modLfoDelay, vibLfoDelay, modEnvDelay, modEnvAttack, modEnvHold, modEnvDecay, modEnvRelease,
                      volEnvDelay, volEnvAttack, volEnvHold, volEnvDecay, volEnvRelease] { values[index] = -12000 }
        values[filterFc] = 13500
        values[keynum] = -1; values[velocity] = -1; values[overridingRootKey] = -1
        values[scaleTuning] = 100
        return values
    }()

    /// Generators that are not allowed at preset level (SoundFont 2.04, section 8.5): sample offsets,
    /// key/velocity overrides, sample modes, exclusive class, root key (and the range and index generators).
    static let notAtPresetLevel: Set<Int> = [0, 1, 2, 3, 4, 12, 45, 46, 47, 50, 54, 57, 58, 41, 53, 43, 44]
}

/// A modulator as the engine evaluates it: amount × source(primary) × source(secondary) added to a generator.
struct EngineModulator: Equatable, Sendable {
    var source: UInt16
    var amountSource: UInt16
    var destination: Int
    var amount: Float
    var transform: UInt16

    /// Same sources, destination and transform (SoundFont 2.04, section 9.5.1): "identical" modulators.
    func isIdentical(to other: EngineModulator) -> Bool {
        source == other.source && amountSource == other.amountSource && destination == other.destination && transform == other.transform
    }

    /// The default modulators of SoundFont 2.04 section 8.4, as FluidSynth 2.3 has them. Its
    /// velocity-to-filter modulator is present so a font can match and turn it off, but FluidSynth
    /// evaluates it as 0, and so does this engine.
    static let defaults: [EngineModulator] = [
        // velocity → attenuation, concave, negative, 960 cB
        EngineModulator(source: 0x0502, amountSource: 0, destination: Gen.attenuation, amount: 960, transform: 0),
        // velocity → filter cutoff (FluidSynth's form: linear negative × switch), -2400 cents: evaluated as 0
        EngineModulator(source: 0x0102, amountSource: 0x0C02, destination: Gen.filterFc, amount: -2400, transform: 0),
        // channel pressure → vibrato LFO pitch depth, 50 cents
        EngineModulator(source: 0x000D, amountSource: 0, destination: Gen.vibLfoToPitch, amount: 50, transform: 0),
        // CC1 (modulation wheel) → vibrato LFO pitch depth, 50 cents
        EngineModulator(source: 0x0081, amountSource: 0, destination: Gen.vibLfoToPitch, amount: 50, transform: 0),
        // CC7 (volume) → attenuation, concave negative, 960 cB
        EngineModulator(source: 0x0587, amountSource: 0, destination: Gen.attenuation, amount: 960, transform: 0),
        // CC10 (pan) → pan, linear bipolar, 500
        EngineModulator(source: 0x028A, amountSource: 0, destination: Gen.pan, amount: 500, transform: 0),
        // CC11 (expression) → attenuation, concave negative, 960 cB
        EngineModulator(source: 0x058B, amountSource: 0, destination: Gen.attenuation, amount: 960, transform: 0),
        // CC91 → reverb send, 200 (tenths of a percent)
        EngineModulator(source: 0x00DB, amountSource: 0, destination: Gen.reverbSend, amount: 200, transform: 0),
        // CC93 → chorus send, 200
        EngineModulator(source: 0x00DD, amountSource: 0, destination: Gen.chorusSend, amount: 200, transform: 0),
        // pitch wheel (bipolar) × pitch wheel sensitivity → pitch, 12700 cents
        EngineModulator(source: 0x020E, amountSource: 0x0010, destination: Gen.pitch, amount: 12700, transform: 0),
    ]
    static let velocityToFilter = defaults[1]
}

/// One voice a note may start: a preset zone × instrument zone pair, resolved once at load (SoundFont
/// 2.04, section 9.4): instrument generators absolute (local over global over default), preset generators
/// added (local over global, the ones not allowed at preset level left out), ranges intersected, and the
/// modulator list (defaults, replaced by instrument modulators, added to by preset modulators).
struct Region: Sendable {
    var keys: ClosedRange<Int>
    var velocities: ClosedRange<Int>
    /// Index into the bank's generator table: `Gen.count` values from here.
    var generatorBase: Int
    /// Range of the bank's modulator table.
    var modulatorStart: Int
    var modulatorCount: Int
    /// The sample header index.
    var sample: Int
}

/// A SoundFont ready for the engine: its hydra and sample data, and every preset's regions resolved.
/// Read-only after init, so one bank is shared by every engine and thread that plays it.
public final class SoundFontBank: Sendable {
    /// The font as read from its file.
    public let hydra: SoundFontHydra
    let regions: [Region]
    /// For each preset (hydra order), its range in `regions`.
    let presetRegions: [Range<Int>]
    /// `Gen.count` values per region.
    let generators: [Float]
    let modulators: [EngineModulator]
    /// Preset index for bank × 128 + program, banks 0...128; -1 where the font has none.
    let presetTable: [Int]

    /// Reads the SoundFont at `path` (SF2, or SF3 with its Ogg Vorbis samples decoded through libsndfile) and
    /// resolves its presets. Throws a `SoundFontError` for a broken file.
    public convenience init(path: String) throws(SoundFontError) {
        try self.init(hydra: SoundFontHydra(path: path, compressedSamples: CompressedSampleDecoder(
            pointCount: InMemoryAudioDecoder.frameCount, decode: InMemoryAudioDecoder.decode16BitMono)))
    }

    /// Resolves the presets of `hydra`.
    public init(hydra: SoundFontHydra) {
        self.hydra = hydra
        var regions: [Region] = [], presetRegions: [Range<Int>] = [], generators: [Float] = [], modulators: [EngineModulator] = []
        var table = [Int](repeating: -1, count: 129 * 128)

        func engineModulators(_ list: [SoundFontHydra.Modulator]) -> [EngineModulator] {
            var result: [EngineModulator] = []
            for m in list where Int(m.destination) < Gen.count - 1 && m.destination & 0x8000 == 0 {
                let modulator = EngineModulator(source: m.source, amountSource: m.amountSource, destination: Int(m.destination),
                                                amount: Float(m.amount), transform: m.transform)
                // identical modulators in one zone: only the first counts (SoundFont 2.04, section 9.5.1)
                if !result.contains(where: { $0.isIdentical(to: modulator) }) { result.append(modulator) }
            }
            return result
        }
        /// Local modulators plus the global ones no local one is identical to.
        func merged(global: [SoundFontHydra.Modulator]?, local: [SoundFontHydra.Modulator]) -> [EngineModulator] {
            let locals = engineModulators(local)
            return locals + engineModulators(global ?? []).filter { g in !locals.contains { $0.isIdentical(to: g) } }
        }

        for (presetIndex, preset) in hydra.presets.enumerated() {
            let first = regions.count
            if preset.bank <= 128, preset.program < 128, table[preset.bank * 128 + preset.program] < 0 {
                table[preset.bank * 128 + preset.program] = presetIndex
            }
            for presetZone in preset.zones {
                guard let instrumentIndex = presetZone.target else { continue }
                let instrument = hydra.instruments[instrumentIndex]
                let presetKeys = presetZone.generators.contains { $0.kind == Gen.keyRange } ? presetZone.keyRange : (preset.globalZone?.keyRange ?? 0...127)
                let presetVelocities = presetZone.generators.contains { $0.kind == Gen.velRange } ? presetZone.velocityRange : (preset.globalZone?.velocityRange ?? 0...127)
                for zone in instrument.zones {
                    guard let sampleIndex = zone.target else { continue }
                    let sample = hydra.samples[sampleIndex]
                    if sample.type & 0x8000 != 0 { continue }  // ROM samples are not in the file
                    let zoneKeys = zone.generators.contains { $0.kind == Gen.keyRange } ? zone.keyRange : (instrument.globalZone?.keyRange ?? 0...127)
                    let zoneVelocities = zone.generators.contains { $0.kind == Gen.velRange } ? zone.velocityRange : (instrument.globalZone?.velocityRange ?? 0...127)
                    let keys = max(presetKeys.lowerBound, zoneKeys.lowerBound)...max(max(presetKeys.lowerBound, zoneKeys.lowerBound), min(presetKeys.upperBound, zoneKeys.upperBound))
                    let velocities = max(presetVelocities.lowerBound, zoneVelocities.lowerBound)...max(max(presetVelocities.lowerBound, zoneVelocities.lowerBound), min(presetVelocities.upperBound, zoneVelocities.upperBound))
                    guard presetKeys.overlaps(zoneKeys), presetVelocities.overlaps(zoneVelocities) else { continue }

                    // Instrument level: absolute, local over global over default (FluidSynth scales
                    // initialAttenuation by 0.4 as the EMU hardware does).
                    var values = Gen.defaults
                    for generator in (instrument.globalZone?.generators ?? []) + zone.generators where generator.kind < Gen.count - 1 {
                        values[generator.kind] = Float(generator.amount) * (generator.kind == Gen.attenuation ? 0.4 : 1)
                    }
                    // Preset level: added, local over global.
                    var presetValues = [Float?](repeating: nil, count: Gen.count)
                    for generator in (preset.globalZone?.generators ?? []) + presetZone.generators
                    where generator.kind < Gen.count - 1 && !Gen.notAtPresetLevel.contains(generator.kind) {
                        presetValues[generator.kind] = Float(generator.amount) * (generator.kind == Gen.attenuation ? 0.4 : 1)
                    }
                    for index in 0..<Gen.count { if let added = presetValues[index] { values[index] += added } }

                    // Modulators: defaults; instrument modulators replace identical ones (or are appended);
                    // preset modulators add to identical ones (or are appended).
                    var list = EngineModulator.defaults
                    for m in merged(global: instrument.globalZone?.modulators, local: zone.modulators) {
                        if let index = list.firstIndex(where: { $0.isIdentical(to: m) }) { list[index].amount = m.amount } else { list.append(m) }
                    }
                    for m in merged(global: preset.globalZone?.modulators, local: presetZone.modulators) where m.amount != 0 {
                        if let index = list.firstIndex(where: { $0.isIdentical(to: m) }) { list[index].amount += m.amount } else { list.append(m) }
                    }
                    regions.append(Region(keys: keys, velocities: velocities, generatorBase: generators.count,
                                          modulatorStart: modulators.count, modulatorCount: list.count, sample: sampleIndex))
                    generators += values
                    modulators += list
                }
            }
            presetRegions.append(first..<regions.count)
        }
        self.regions = regions
        self.presetRegions = presetRegions
        self.generators = generators
        self.modulators = modulators
        self.presetTable = table
    }

    /// The preset index for `bank`/`program`, falling back as FluidSynth does: the same program in bank 0
    /// for a melodic bank, program 0 of bank 128 for the drums; nil when even that is missing.
    public func presetIndex(bank: Int, program: Int) -> Int? {
        let program = min(max(program, 0), 127)
        if (0...128).contains(bank), presetTable[bank * 128 + program] >= 0 { return presetTable[bank * 128 + program] }
        if bank == 128 { return presetTable[128 * 128] >= 0 ? presetTable[128 * 128] : nil }
        return presetTable[program] >= 0 ? presetTable[program] : nil
    }

    /// The preset index for exactly `bank`/`program`; nil when the font has none.
    func exactPresetIndex(bank: Int, program: Int) -> Int? {
        guard (0...128).contains(bank), (0...127).contains(program) else { return nil }
        let index = presetTable[bank * 128 + program]
        return index >= 0 ? index : nil
    }

    /// How many voices `key`/`velocity` starts on the preset at `presetIndex` (region resolution, for tests and tools).
    public func voiceCount(presetIndex: Int, key: Int, velocity: Int) -> Int {
        guard presetRegions.indices.contains(presetIndex) else { return 0 }
        return presetRegions[presetIndex].filter { regions[$0].keys.contains(key) && regions[$0].velocities.contains(velocity) }.count
    }
}
