import Foundation
import Sampler
import SoundFontFile
import TestSupport
import XCTest

/// Every preset of a General MIDI font played by seqplay's engine against `fluidsynth -F` (dry, gain 1).
extension SamplerEngineTests {
    /// Every melodic preset of bank 0 and every drum kit of FluidR3, two keys and two velocities, against
    /// fluidsynth: the share of presets whose four notes are all within 1 dB level and 2 dB envelope (the
    /// issue asks 95 %), and the worst presets.
    func testEveryFluidR3PresetAgainstFluidSynth() throws {
        try comparePresets(of: Self.fluidR3, name: "FluidR3")
    }

    /// The same for MuseScore_General.sf3, whose Ogg Vorbis samples the engine decodes at load.
    func testEveryMuseScoreGeneralPresetAgainstFluidSynth() throws {
        try comparePresets(of: Self.museScoreGeneral, name: "MuseScore_General.sf3")
    }

    func comparePresets(of font: String, name: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fluidsynth"), FileManager.default.fileExists(atPath: font) else {
            throw XCTSkip("no fluidsynth command or \(font)")
        }
        let scratch = try ScratchDirectory(prefix: "engine-every-preset")
        defer { scratch.remove() }
        let bank = try SoundFontBank(path: font)
        var plan = Plan(cases: [], slot: 5 * Self.rate / 2, noteLength: Self.rate, analysed: 2 * Self.rate)
        for preset in bank.hydra.presets where preset.bank == 0 || preset.bank == 128 {
            let drums = preset.bank == 128
            for key in drums ? [38, 42] : [48, 72] {
                for velocity in [100, 50] {
                    plan.cases.append(Case(name: (drums ? "kit " : "") + preset.name, channel: drums ? 9 : 0, program: preset.program, key: key, velocity: velocity))
                }
            }
        }
        let reference = try Self.fluidSynthRender(font: font, plan: plan, scratch: scratch)
        let ours = try Self.engineRender(bank: bank, plan: plan)
        var results: [(name: String, key: Int, velocity: Int, comparison: Comparison)] = []
        for (index, c) in plan.cases.enumerated() {
            results.append((c.name, c.key, c.velocity, Self.compare(ours: ours, reference: reference, start: index * plan.slot, analysed: plan.analysed)))
        }
        func alike(_ c: Comparison) -> Bool { abs(c.levelDifference) <= 1 && c.envelopeDifference <= 2 }
        let presets = Set(results.map(\.name))
        let failing = Set(results.filter { !alike($0.comparison) }.map(\.name))
        let notes = results.filter { alike($0.comparison) }.count
        let share = Double(presets.count - failing.count) / Double(presets.count)
        print(String(format: "every %@ preset: %d of %d presets (%.1f %%) and %d of %d notes within 1 dB level and 2 dB envelope",
                     name, presets.count - failing.count, presets.count, 100 * share, notes, results.count))
        for r in results.sorted(by: { max(abs($0.comparison.levelDifference), $0.comparison.envelopeDifference / 2)
                                        > max(abs($1.comparison.levelDifference), $1.comparison.envelopeDifference / 2) }).prefix(8) {
            print(String(format: "  worst: %@ key %d vel %d: level %+.2f dB, envelope %.2f dB", r.name, r.key, r.velocity,
                         r.comparison.levelDifference, r.comparison.envelopeDifference))
        }
        XCTAssertGreaterThanOrEqual(share, 0.95)
    }
}
