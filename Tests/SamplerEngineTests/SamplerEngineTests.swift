import AllocationCounter
import Foundation
import Sampler
import SoundFontFile
import TestSupport
import XCTest

/// seqplay's own SoundFont engine (Sources/Sampler/Engine): its hydra reader against `SoundFontContents`
/// and hostile files, its sound against libfluidsynth (`fluidsynth -F`), sample-exact starts, and a render
/// thread that allocates nothing.
final class SamplerEngineTests: XCTestCase {
    static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    /// Debian's musescore-general-soundfont: an SF3 font (Ogg Vorbis samples).
    static let museScoreGeneral = "/usr/share/sounds/sf3/MuseScore_General.sf3"
    static let shippedFont: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
    }()
    static var fonts: [String] { [shippedFont, fluidR3].filter { FileManager.default.fileExists(atPath: $0) } }

    // MARK: (a) the hydra reader

    func testHydraAgreesWithSoundFontContents() throws {
        for path in Self.fonts {
            let contents = try SoundFontContents(path: path)
            let hydra = try SoundFontHydra(path: path)
            XCTAssertEqual(hydra.presets.count, contents.presets.count, path)
            XCTAssertEqual(hydra.presets.map(\.name), contents.presets.map(\.name), path)
            XCTAssertEqual(hydra.presets.map(\.bank), contents.presets.map(\.bank), path)
            XCTAssertEqual(hydra.presets.map(\.program), contents.presets.map(\.program), path)
            XCTAssertEqual(hydra.instruments.count, contents.instruments, path)
            XCTAssertEqual(hydra.samples.count, contents.samples, path)
            let zones = hydra.presets.map { $0.zones.count + ($0.globalZone == nil ? 0 : 1) }
            XCTAssertEqual(zones, contents.presets.map(\.zones), path)
            XCTAssertEqual(hydra.sampleData.count * (hydra.has24BitSamples ? 3 : 2), contents.sampleDataBytes, path)
            let bank = SoundFontBank(hydra: hydra)
            let piano = try XCTUnwrap(bank.presetIndex(bank: 0, program: 0))
            XCTAssertGreaterThan(bank.voiceCount(presetIndex: piano, key: 60, velocity: 100), 0)
            print("hydra \(URL(fileURLWithPath: path).lastPathComponent): \(hydra.presets.count) presets, \(hydra.instruments.count) instruments, "
                  + "\(hydra.samples.count) samples, \(hydra.sampleData.count) points, 24-bit \(hydra.has24BitSamples)")
        }
    }

    func testTruncatedAndCorruptedFontsThrowInsteadOfTrapping() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.shippedFont))
        let scratch = try ScratchDirectory(prefix: "engine-hostile")
        defer { scratch.remove() }
        let path = scratch.path("hostile.sf2")
        for fraction in [0.0, 0.01, 0.1, 0.5, 0.9, 0.999] {
            try original.prefix(Int(Double(original.count) * fraction)).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try SoundFontHydra(path: path), "truncated to \(fraction)")
        }
        // An instrument reference far past the instruments: refused with a SoundFontError.
        let structure = try SoundFontStructure(path: Self.shippedFont)
        let pgen = try XCTUnwrap(structure.tables["pgen"])
        var targeted = original
        var offset = pgen.dataOffset
        while offset < pgen.dataOffset + pgen.size {
            if targeted[offset] == 41 && targeted[offset + 1] == 0 { targeted[offset + 2] = 0xFF; targeted[offset + 3] = 0x7F; break }
            offset += 4
        }
        try targeted.write(to: URL(fileURLWithPath: path))
        do {
            _ = try SoundFontHydra(path: path)
            XCTFail("an instrument index past the table was accepted")
        } catch {
            print("targeted corruption: \(error)")
        }
        // Random bytes anywhere in the tables: either a font that plays or an error, never a trap.
        let pdtaStart = try XCTUnwrap(structure.tables["phdr"]).dataOffset
        var random = SeededGenerator(seed: 31)
        var accepted = 0, refused = 0
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 4096), right = UnsafeMutablePointer<Float>.allocate(capacity: 4096)
        defer { left.deallocate(); right.deallocate() }
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<8 {
                bytes[Int.random(in: pdtaStart..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            try bytes.write(to: URL(fileURLWithPath: path))
            do {
                let bank = try SoundFontBank(path: path)
                accepted += 1
                let engine = SoundFontEngine(bank: bank, polyphony: 16)
                var events: [SoundFontEngine.Event] = []
                for key in stride(from: 24, to: 108, by: 12) { events.append(.init(frame: key, .noteOn(channel: 0, key: key, velocity: 100))) }
                events.append(.init(frame: 100, .noteOn(channel: 9, key: 38, velocity: 100)))
                engine.render(frames: 4096, events: events, left: left, right: right)
            } catch {
                refused += 1
            }
        }
        print("random corruption: \(accepted) fonts accepted and played, \(refused) refused")
    }

    // MARK: (b) against libfluidsynth

    struct Case {
        var name: String
        var channel: Int
        var program: Int
        var key: Int
        var velocity: Int
    }

    static let cases: [Case] = {
        var cases: [Case] = []
        for (name, program) in [("piano", 0), ("strings", 48), ("organ", 19)] {
            for key in [60, 72] { for velocity in [100, 60] { cases.append(Case(name: name, channel: 0, program: program, key: key, velocity: velocity)) } }
        }
        for key in [36, 38] { for velocity in [100, 60] { cases.append(Case(name: "drums", channel: 9, program: 0, key: key, velocity: velocity)) } }
        return cases
    }()

    static let rate = 44100
    /// Notes to compare, one per slot: the note sounds `noteLength` frames, `analysed` frames of the slot are measured.
    struct Plan {
        var cases: [Case]
        var slot = 4 * rate, noteLength = 3 * rate / 2, analysed = 7 * rate / 2
    }

    /// Events of every case, one case per 4-second slot: program change, note on, note off 1.5 s later.
    static func timeline(_ plan: Plan) -> [(frame: Int, message: SoundFontEngine.Message)] {
        var events: [(Int, SoundFontEngine.Message)] = []
        for (index, c) in plan.cases.enumerated() {
            let start = index * plan.slot
            events.append((start, .programChange(channel: c.channel, program: c.program)))
            events.append((start, .noteOn(channel: c.channel, key: c.key, velocity: c.velocity)))
            events.append((start + plan.noteLength, .noteOff(channel: c.channel, key: c.key)))
        }
        return events
    }

    /// The timeline as a format-0 MIDI file at 1 tick per millisecond (500 ticks per quarter at 120 BPM).
    static func midiFile(_ plan: Plan) -> Data {
        var events: [(ms: Int, bytes: [UInt8])] = []
        for (frame, message) in timeline(plan) {
            switch message {
            case let .programChange(channel, program): events.append((frame * 1000 / rate, [0xC0 | UInt8(channel), UInt8(program)]))
            case let .noteOn(channel, key, velocity): events.append((frame * 1000 / rate, [0x90 | UInt8(channel), UInt8(key), UInt8(velocity)]))
            case let .noteOff(channel, key): events.append((frame * 1000 / rate, [0x80 | UInt8(channel), UInt8(key), 0]))
            default: break
            }
        }
        return MIDIControlTests.midiFile(.init(events: events, lengthMs: plan.cases.count * plan.slot * 1000 / rate))
    }

    /// FluidSynth's render of the timeline (dry, gain 1), interleaved stereo.
    static func fluidSynthRender(font: String, plan: Plan, scratch: ScratchDirectory) throws -> [Float] {
        try fluidSynthRender(font: font, midi: midiFile(plan), scratch: scratch)
    }

    /// FluidSynth's render of a MIDI file (dry, gain 1), interleaved stereo.
    static func fluidSynthRender(font: String, midi: Data, scratch: ScratchDirectory) throws -> [Float] {
        let song = scratch.path("song.mid"), output = scratch.path("out.raw")
        try midi.write(to: URL(fileURLWithPath: song))
        let run = try runCommand(URL(fileURLWithPath: "/usr/bin/fluidsynth"),
                                 ["-ni", "-q", "-R", "0", "-C", "0", "-g", "1", "-r", "\(rate)", "-F", output, "-T", "raw", "-O", "float", "-E", "little", font, song],
                                 timeLimit: 600)
        XCTAssertEqual(run.status, 0, run.standardError)
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Our render of the timeline, interleaved stereo.
    static func engineRender(font: String, plan: Plan) throws -> [Float] {
        try engineRender(bank: SoundFontBank(path: font), plan: plan)
    }

    /// Our render of the timeline playing `bank`, interleaved stereo.
    static func engineRender(bank: SoundFontBank, plan: Plan) throws -> [Float] {
        let engine = SoundFontEngine(bank: bank, sampleRate: Double(rate), polyphony: 256)
        let total = plan.cases.count * plan.slot, block = 512
        let left = UnsafeMutablePointer<Float>.allocate(capacity: block), right = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { left.deallocate(); right.deallocate() }
        var output = [Float](repeating: 0, count: 2 * total)
        let timeline = timeline(plan)
        var next = 0
        for start in stride(from: 0, to: total, by: block) {
            var events: [SoundFontEngine.Event] = []
            while next < timeline.count && timeline[next].frame < start + block {
                events.append(.init(frame: timeline[next].frame - start, timeline[next].message))
                next += 1
            }
            let frames = min(block, total - start)
            engine.render(frames: frames, events: events, left: left, right: right)
            for i in 0..<frames { output[2 * (start + i)] = left[i]; output[2 * (start + i) + 1] = right[i] }
        }
        return output
    }

    struct Comparison {
        var levelDifference: Double
        var envelopeDifference: Double
        var onsetOffset: Int
        var referenceLevel: Double
    }

    /// Level (RMS over the slot) and 10 ms RMS envelope (mean absolute dB difference over the reference's
    /// frames above −50 dBFS) of ours against the reference, ours aligned on the reference's onset.
    static func compare(ours: [Float], reference: [Float], start: Int, analysed: Int) -> Comparison {
        func frame(_ signal: [Float], _ index: Int) -> (Float, Float) {
            let i = 2 * index
            return i + 1 < signal.count ? (signal[i], signal[i + 1]) : (0, 0)
        }
        func onset(_ signal: [Float]) -> Int {
            for i in start..<(start + analysed) { let (l, r) = frame(signal, i); if abs(l) + abs(r) > 1e-4 { return i - start } }
            return 0
        }
        let offset = max(-512, min(512, onset(ours) - onset(reference)))
        func energy(_ signal: [Float], from: Int, count: Int) -> Double {
            var sum = 0.0
            for i in from..<(from + count) { let (l, r) = frame(signal, i); sum += Double(l * l + r * r) / 2 }
            return sum / Double(count)
        }
        let referenceEnergy = energy(reference, from: start, count: analysed - 512)
        let level = 10 * log10((energy(ours, from: start + max(offset, 0), count: analysed - 512) + 1e-20) / (referenceEnergy + 1e-20))
        let window = rate / 100
        var total = 0.0, counted = 0
        for w in 0..<((analysed - 512) / window) {
            let ref = 10 * log10(energy(reference, from: start + w * window, count: window) + 1e-20)
            guard ref > -50 else { continue }
            let our = 10 * log10(energy(ours, from: start + max(offset, 0) + w * window, count: window) + 1e-20)
            total += abs(max(our, -100) - ref)
            counted += 1
        }
        // Both silent (the preset has nothing on this key): alike.
        let silent = referenceEnergy < 1e-10 && energy(ours, from: start, count: analysed - 512) < 1e-10
        return Comparison(levelDifference: silent ? 0 : level,
                          envelopeDifference: counted > 0 ? total / Double(counted) : silent ? 0 : .infinity, onsetOffset: offset,
                          referenceLevel: 10 * log10(referenceEnergy + 1e-20))
    }

    func testNotesSoundLikeFluidSynth() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fluidsynth") else { throw XCTSkip("no fluidsynth command") }
        let scratch = try ScratchDirectory(prefix: "engine-vs-fluidsynth")
        defer { scratch.remove() }
        var worstLevel = 0.0, worstEnvelope = 0.0, within = 0, all = 0
        for font in Self.fonts {
            let plan = Plan(cases: Self.cases)
            let reference = try Self.fluidSynthRender(font: font, plan: plan, scratch: scratch)
            let ours = try Self.engineRender(font: font, plan: plan)
            for (index, c) in plan.cases.enumerated() {
                let result = Self.compare(ours: ours, reference: reference, start: index * plan.slot, analysed: plan.analysed)
                let fontName = URL(fileURLWithPath: font).lastPathComponent
                print(String(format: "engine vs fluidsynth %@ %@ key %d vel %d: fluidsynth %.1f dBFS, level %+.2f dB, envelope %.2f dB, onset %+d samples",
                             fontName, c.name, c.key, c.velocity, result.referenceLevel, result.levelDifference, result.envelopeDifference,
                             result.onsetOffset))
                worstLevel = max(worstLevel, abs(result.levelDifference))
                worstEnvelope = max(worstEnvelope, result.envelopeDifference)
                all += 1
                if abs(result.levelDifference) <= 1 && result.envelopeDifference <= 2 { within += 1 }
                XCTAssertLessThanOrEqual(abs(result.levelDifference), Self.levelBound, "\(fontName) \(c.name) \(c.key) \(c.velocity)")
                XCTAssertLessThanOrEqual(result.envelopeDifference, Self.envelopeBound, "\(fontName) \(c.name) \(c.key) \(c.velocity)")
            }
        }
        print(String(format: "engine vs fluidsynth: %d of %d notes within 1 dB level and 2 dB envelope; worst level %.2f dB, worst envelope %.2f dB",
                     within, all, worstLevel, worstEnvelope))
    }

    /// What this session's engine reaches on every case (the issue's goal is 1 dB and 2 dB).
    static let levelBound = 1.0
    static let envelopeBound = 2.0

    // MARK: (c) sample-exact starts

    func testNotesStartOnTheirSample() throws {
        let bank = try SoundFontBank(path: Self.shippedFont)
        let frames = 4096
        func render(noteAt frame: Int) -> [Float] {
            let engine = SoundFontEngine(bank: bank, polyphony: 8)
            let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            defer { left.deallocate(); right.deallocate() }
            engine.render(frames: frames, events: [.init(frame: frame, .noteOn(channel: 0, key: 60, velocity: 100))], left: left, right: right)
            return Array(UnsafeBufferPointer(start: left, count: frames))
        }
        let template = render(noteAt: 0)
        let templateOnset = try XCTUnwrap(template.firstIndex { $0 != 0 })
        for offset in [37, 1000] {
            let output = render(noteAt: offset)
            let onset = try XCTUnwrap(output.firstIndex { $0 != 0 })
            print("note at frame \(offset): first non-zero sample \(onset) (template's \(templateOnset) after its start)")
            XCTAssertEqual(onset - offset, templateOnset, "the note starts on its own sample, not on a 64-sample grid")
            XCTAssertTrue(output[..<offset].allSatisfy { $0 == 0 })
            XCTAssertEqual(Array(output[offset..<frames]), Array(template[0..<(frames - offset)]), "the same note, shifted by exactly \(offset) samples")
        }
    }

    // MARK: (d) no allocation on the render thread

    func testRenderAllocatesNothing() throws {
        // Two fonts stacked (the click font's piano and kit over the shipped font's), channel 1 of the shipped
        // font alone, channel 6 forced to program 24, channels 3 and 10 the drums: both fonts' points are read,
        // and channel 2's program changes to programs neither font has fall back.
        let bank = try SoundFontBank(path: Self.shippedFont)
        let click = try SoundFontBank(path: (Self.shippedFont as NSString).deletingLastPathComponent + "/click.sf2")
        let engine = SoundFontEngine(banks: [bank, click], polyphony: 32)
        engine.setChannels(drums: [2, 9], programs: [5: .init(program: 24)], fonts: [0: 0])
        let frames = 256
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        var blocks: [[SoundFontEngine.Event]] = []
        for block in 0..<400 {
            let key = 36 + block % 48
            var events: [SoundFontEngine.Event] = [
                .init(frame: 3, .noteOn(channel: block % 3, key: key, velocity: 40 + block % 80)),
                .init(frame: 17, .controlChange(channel: 0, controller: [1, 7, 10, 11, 91, 93][block % 6], value: block % 128)),
                .init(frame: 90, .pitchBend(channel: 0, value: (block * 97) % 16384)),
                .init(frame: 200, .noteOff(channel: block % 3, key: 36 + (block + 40) % 48)),
            ]
            if block % 50 == 0 { events.append(.init(frame: 250, .programChange(channel: 1, program: block % 128))) }
            if block % 7 == 0 { events.append(.init(frame: 120, .noteOn(channel: 9, key: 35 + block % 40, velocity: 110))) }
            if block % 64 == 0 { events.append(.init(frame: 60, .controlChange(channel: 2, controller: 64, value: block % 128 < 64 ? 127 : 0))) }
            blocks.append(events)
        }
        // Warm up: the engine's tables are made on first use.
        engine.render(frames: frames, events: blocks[0], left: left, right: right)
        // Each kind of event alone, so a failure names what allocates.
        let kinds: [(String, [SoundFontEngine.Event])] = [
            ("nothing", []),
            ("note on", [.init(frame: 5, .noteOn(channel: 0, key: 61, velocity: 90))]),
            ("note off", [.init(frame: 5, .noteOff(channel: 0, key: 61))]),
            ("controller", [.init(frame: 5, .controlChange(channel: 0, controller: 7, value: 90))]),
            ("pitch bend", [.init(frame: 5, .pitchBend(channel: 0, value: 9000))]),
            ("program", [.init(frame: 5, .programChange(channel: 0, program: 3))]),
            ("missing program", [.init(frame: 5, .programChange(channel: 1, program: 11))]),  // a fallback across the stack
            ("sostenuto", [.init(frame: 5, .controlChange(channel: 0, controller: 66, value: 127)), .init(frame: 9, .noteOff(channel: 0, key: 61)),
                           .init(frame: 40, .controlChange(channel: 0, controller: 66, value: 0))]),
            ("NRPN and RPN", [.init(frame: 5, .controlChange(channel: 0, controller: 99, value: 120)), .init(frame: 5, .controlChange(channel: 0, controller: 98, value: 8)),
                              .init(frame: 5, .controlChange(channel: 0, controller: 6, value: 60)), .init(frame: 9, .controlChange(channel: 0, controller: 101, value: 0)),
                              .init(frame: 9, .controlChange(channel: 0, controller: 100, value: 1)), .init(frame: 9, .controlChange(channel: 0, controller: 6, value: 70))]),
            ("key pressure", [.init(frame: 5, .keyPressure(channel: 0, key: 61, value: 100))]),
            // XG System On to all devices switches to XG bank selects: a melodic channel made a kit, then a bank by CC 32.
            ("XG System On", [.init(frame: 5, .systemExclusive([0xF0, 0x43, 0x7F, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7]))]),
            ("XG bank selects", [.init(frame: 5, .controlChange(channel: 0, controller: 0, value: 127)), .init(frame: 5, .programChange(channel: 0, program: 0)),
                                 .init(frame: 9, .noteOn(channel: 0, key: 38, velocity: 100)), .init(frame: 20, .controlChange(channel: 0, controller: 0, value: 0)),
                                 .init(frame: 20, .controlChange(channel: 0, controller: 32, value: 8)), .init(frame: 20, .programChange(channel: 0, program: 4))]),
            ("GS Reset", [.init(frame: 5, .systemExclusive([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41, 0xF7]))]),
            ("GM System On", [.init(frame: 5, .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]))]),
            ("other SysEx", [.init(frame: 5, .systemExclusive([0xF0, 0x7F, 0x7F, 0x04, 0x01, 0x00, 0x60, 0xF7]))]),
            ("system reset", [.init(frame: 5, .systemReset)]),
        ]
        for (name, events) in kinds {
            seqplay_alloc_count_begin()
            for _ in 0..<10 { engine.render(frames: frames, events: events, left: left, right: right) }
            let counts = seqplay_alloc_count_end()
            print("render thread, \(name): \(counts.allocations) allocations in 10 calls")
            XCTAssertEqual(counts.allocations, 0, "allocations on the render thread: \(name)")
        }
        seqplay_alloc_count_begin()
        var peak: Float = 0
        for index in 0..<blocks.count {
            engine.render(frames: frames, events: blocks[index], left: left, right: right)
            var i = 0
            while i < frames { peak = max(peak, abs(left[i])); i += 1 }
        }
        let counts = seqplay_alloc_count_end()
        print("render thread: \(counts.allocations) allocations over \(blocks.count) blocks with events; peak \(peak), \(engine.activeVoiceCount) voices at the end (pool 32)")
        XCTAssertEqual(counts.allocations, 0, "allocations on the render thread")
        XCTAssertGreaterThan(peak, 0.001, "notes sounded")
        XCTAssertLessThanOrEqual(engine.activeVoiceCount, 32)
    }

    // MARK: pool, pedal, exclusive class

    func testFullPoolStealsAndSustainPedalHolds() throws {
        let bank = try SoundFontBank(path: Self.shippedFont)
        let engine = SoundFontEngine(bank: bank, polyphony: 4)
        let frames = 2048
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        // Organ (looped, sustains forever): ten notes into four voices.
        var events: [SoundFontEngine.Event] = [.init(frame: 0, .programChange(channel: 0, program: 19))]
        for i in 0..<10 { events.append(.init(frame: 10 * i + 1, .noteOn(channel: 0, key: 48 + i, velocity: 100))) }
        engine.render(frames: frames, events: events, left: left, right: right)
        XCTAssertEqual(engine.activeVoiceCount, 4, "the pool is full and no larger")
        engine.render(frames: frames, events: [.init(frame: 0, .controlChange(channel: 0, controller: 120, value: 0))], left: left, right: right)
        XCTAssertEqual(engine.activeVoiceCount, 0, "all sound off")

        // Sustain pedal: a note released under the pedal keeps sounding until the pedal goes up.
        let pedal = SoundFontEngine(bank: bank, polyphony: 8)
        pedal.render(frames: frames, events: [
            .init(frame: 0, .programChange(channel: 0, program: 19)),
            .init(frame: 1, .controlChange(channel: 0, controller: 64, value: 127)),
            .init(frame: 2, .noteOn(channel: 0, key: 60, velocity: 100)),
            .init(frame: 1000, .noteOff(channel: 0, key: 60)),
        ], left: left, right: right)
        for _ in 0..<40 { pedal.render(frames: frames, left: left, right: right) }
        let held = pedal.activeVoiceCount
        XCTAssertGreaterThan(held, 0, "held by the pedal")
        pedal.render(frames: frames, events: [.init(frame: 0, .controlChange(channel: 0, controller: 64, value: 0))], left: left, right: right)
        for _ in 0..<200 { pedal.render(frames: frames, left: left, right: right) }
        XCTAssertEqual(pedal.activeVoiceCount, 0, "released when the pedal went up")
        print("pool of 4 after 10 notes: 4 voices; pedal held \(held) voices 0.9 s after the note-off, 0 after the pedal went up")

        // Exclusive class: FluidR3's closed hi-hat (42) stops its open hi-hat (46) within 139 ms.
        guard FileManager.default.fileExists(atPath: Self.fluidR3) else { return }
        let fluidR3 = try SoundFontBank(path: Self.fluidR3)
        let hats = SoundFontEngine(bank: fluidR3, polyphony: 16), closedAlone = SoundFontEngine(bank: fluidR3, polyphony: 16)
        hats.render(frames: frames, events: [.init(frame: 0, .noteOn(channel: 9, key: 46, velocity: 100))], left: left, right: right)
        let open = hats.activeVoiceCount
        hats.render(frames: frames, events: [.init(frame: 0, .noteOn(channel: 9, key: 42, velocity: 100))], left: left, right: right)
        closedAlone.render(frames: frames, events: [.init(frame: 0, .noteOn(channel: 9, key: 42, velocity: 100))], left: left, right: right)
        for _ in 0..<2 {  // 139 ms after the closed hi-hat in all
            hats.render(frames: frames, left: left, right: right)
            closedAlone.render(frames: frames, left: left, right: right)
        }
        XCTAssertGreaterThan(open, 0)
        XCTAssertEqual(hats.activeVoiceCount, closedAlone.activeVoiceCount, "the open hi-hat's voices ended")
        print("exclusive class: \(open) open hi-hat voices; 139 ms after the closed hi-hat \(hats.activeVoiceCount) voices, as the closed hi-hat alone")
    }
}
