import Foundation
import TestSupport
import XCTest

/// `seqplay render --engine seqplay` with stacked fonts (`--sf2` twice), `--font-for`, `--program` and
/// `--drums`: one small song whose every note tests one of them, rendered by both engines (dry, float WAV).
/// Each note of seqplay's render sounds like libfluidsynth's (level within 1 dB, 10 ms envelope within
/// 2 dB, the waveforms alike: what is left of ours minus libfluidsynth's at least 10 dB below it), and
/// libfluidsynth's render of the wrong choice (the stack the other way round, or the top font alone,
/// without the channel flags) is not (what is left is within 6 dB of it), so a wrong pick fails.
final class EngineFontStackTests: XCTestCase {
    static let rate = SamplerEngineTests.rate
    /// Each note's slot in the song, in milliseconds; the note sounds the first second.
    static let slotMs = 2000

    /// What a note tests: where and what it plays, and which wrong render it must not sound like.
    struct Note {
        enum Wrong { case stackReversed, topFontAlone }
        var name: String
        var setup: [[UInt8]]
        var channel: UInt8
        var key: UInt8
        var wrong: Wrong
    }

    /// The flags of the right render: FluidR3 below the shipped font (which overrides its piano and kit and
    /// lacks the vibraphone, program 11), channel 3 from FluidR3, channel 2 forced to the vibraphone,
    /// channels 11 (not 10) the drums.
    static func rightFlags(base: String, top: String) -> [String] {
        ["--sf2", base, "--sf2", top, "--font-for", "3=\(base)", "--program", "2=11", "--drums", "11"]
    }

    static let notes: [Note] = [
        Note(name: "the top font's piano over the base font's", setup: [[0xC0, 0]], channel: 0, key: 60, wrong: .stackReversed),
        Note(name: "the base font's vibraphone, which the top font lacks", setup: [[0xC0, 11]], channel: 0, key: 72, wrong: .topFontAlone),
        Note(name: "bank 5 falling back to bank 0 across the stack", setup: [[0xB0, 0, 5], [0xC0, 11]], channel: 0, key: 67, wrong: .topFontAlone),
        Note(name: "the kit's snare from the top font", setup: [[0xC0, 0]], channel: 10, key: 38, wrong: .topFontAlone),
        Note(name: "channel 10 melodic (--drums 11)", setup: [[0xC0, 0]], channel: 9, key: 60, wrong: .topFontAlone),
        Note(name: "--program 2=11 over the song's program change", setup: [[0xB0, 0, 0], [0xC0, 0]], channel: 1, key: 72, wrong: .stackReversed),
        Note(name: "--font-for 3 (the base font's piano)", setup: [[0xC0, 0]], channel: 2, key: 60, wrong: .topFontAlone),
    ]

    /// The song: for each note, its setup messages at the slot's start, the note 10 ms later, its release a second on.
    static var song: Data {
        var events: [(ms: Int, bytes: [UInt8])] = []
        for (index, note) in notes.enumerated() {
            let start = index * slotMs
            for message in note.setup { events.append((start, [message[0] | note.channel] + message.dropFirst())) }
            events.append((start + 10, [0x90 | note.channel, note.key, 100]))
            events.append((start + 1010, [0x80 | note.channel, note.key, 0]))
        }
        return MIDIControlTests.midiFile(.init(events: events, lengthMs: notes.count * slotMs))
    }

    /// `song` rendered with `flags` by `engine` on `threads` threads: the samples and the file's bytes.
    func render(_ song: String, flags: [String], engine: String, threads: Int = 1, scratch: ScratchDirectory) throws -> (samples: [Float], data: Data) {
        let output = scratch.path("\(engine)-\(threads)-\(abs(flags.joined().hashValue)).wav")
        let run = try runSeqplay(["render", song] + flags + ["--engine", engine, "--no-reverb", "--no-chorus", "--bit-depth", "float",
                                                              "--tail", "1", "--threads", "\(threads)", "-o", output], timeLimit: 300)
        XCTAssertEqual(run.status, 0, run.standardError)
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return (EngineCommandLineTests.floatSamples(ofWAV: data), data)
    }

    /// The energy of `signal` minus `reference` over the first half second of the note in the slot from
    /// `start` (`signal` shifted by the lag within 8 frames of `onsetOffset` that leaves least), relative to
    /// the reference's energy, in dB: far below 0 for the same preset, near 0 or above for another.
    static func residual(_ signal: [Float], reference: [Float], start: Int, onsetOffset: Int) -> Double {
        let count = rate / 2
        func point(_ samples: [Float], _ index: Int) -> Double { index >= 0 && index < samples.count ? Double(samples[index]) : 0 }
        var referenceEnergy = 0.0
        for i in (2 * start)..<(2 * (start + count)) { referenceEnergy += point(reference, i) * point(reference, i) }
        var least = Double.infinity
        for lag in (onsetOffset - 8)...(onsetOffset + 8) {
            var energy = 0.0
            for i in (2 * start)..<(2 * (start + count)) {
                let difference = point(signal, i + 2 * lag) - point(reference, i)
                energy += difference * difference
            }
            least = min(least, energy)
        }
        return 10 * log10((least + 1e-20) / (referenceEnergy + 1e-20))
    }

    func testStackedFontsChannelFontsForcedProgramsAndDrumsPickFluidSynthsPresets() throws {
        let base = SamplerEngineTests.fluidR3, top = SamplerEngineTests.shippedFont
        guard FileManager.default.fileExists(atPath: base) else { throw XCTSkip("\(base) is not installed") }
        let scratch = try ScratchDirectory(prefix: "engine-stack")
        let song = scratch.path("stack.mid")
        try Self.song.write(to: URL(fileURLWithPath: song))
        let flags = Self.rightFlags(base: base, top: top)

        let ours = try render(song, flags: flags, engine: "seqplay", scratch: scratch)
        let reference = try render(song, flags: flags, engine: "fluidsynth", scratch: scratch).samples
        let reversed = try render(song, flags: ["--sf2", top, "--sf2", base], engine: "fluidsynth", scratch: scratch).samples
        let alone = try render(song, flags: ["--sf2", top], engine: "fluidsynth", scratch: scratch).samples

        let slot = Self.slotMs * Self.rate / 1000
        for (index, note) in Self.notes.enumerated() {
            let right = SamplerEngineTests.compare(ours: ours.samples, reference: reference, start: index * slot, analysed: slot)
            let wrongRender = note.wrong == .stackReversed ? reversed : alone
            let wrong = SamplerEngineTests.compare(ours: wrongRender, reference: reference, start: index * slot, analysed: slot)
            let rightResidual = Self.residual(ours.samples, reference: reference, start: index * slot, onsetOffset: right.onsetOffset)
            let wrongResidual = Self.residual(wrongRender, reference: reference, start: index * slot, onsetOffset: wrong.onsetOffset)
            print(String(format: "engine font stack, %@: fluidsynth %.1f dBFS; seqplay level %+.2f dB, envelope %.2f dB, residual %.1f dB; wrong choice level %+.2f dB, envelope %.2f dB, residual %.1f dB",
                         note.name, right.referenceLevel, right.levelDifference, right.envelopeDifference, rightResidual,
                         wrong.levelDifference, wrong.envelopeDifference, wrongResidual))
            XCTAssertGreaterThan(right.referenceLevel, -60, "\(note.name): the reference sounds")
            XCTAssertLessThan(abs(right.levelDifference), 1, note.name)
            XCTAssertLessThan(right.envelopeDifference, 2, note.name)
            XCTAssertLessThan(rightResidual, -10, note.name)
            XCTAssertGreaterThan(wrongResidual, -6, "\(note.name): the wrong choice sounds alike")
        }

        let twoThreads = try render(song, flags: flags, engine: "seqplay", threads: 2, scratch: scratch)
        XCTAssertEqual(ours.data, twoThreads.data, "the same bytes on 1 and 2 threads")
    }

    func testAFontForAChannelThatIsNotAFontIsOneLine() throws {
        let scratch = try ScratchDirectory(prefix: "engine-stack-bad")
        let song = scratch.path("stack.mid"), output = scratch.path("out.wav"), notAFont = scratch.path("not.sf2")
        try Self.song.write(to: URL(fileURLWithPath: song))
        try Data("not a SoundFont".utf8).write(to: URL(fileURLWithPath: notAFont))
        let run = try runSeqplay(["render", song, "--engine", "seqplay", "--sf2", SamplerEngineTests.shippedFont, "--font-for", "3=\(notAFont)",
                                  "-o", output], timeLimit: 60)
        XCTAssertEqual(run.status, 4, run.standardError)
        XCTAssertEqual(run.standardError.split(separator: "\n").count, 1, run.standardError)
        XCTAssertTrue(run.standardError.hasPrefix("seqplay: ") && run.standardError.contains("not.sf2"), run.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
