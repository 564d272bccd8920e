import Sampler
import Foundation
import SoundFontFile
import XCTest

/// `SoundFontContents` against FluidSynth's own reading of the same fonts, and on damaged copies.
final class SoundFontContentsTests: XCTestCase {
    static let fonts = ["/usr/share/sounds/sf2/TimGM6mb.sf2", packageRoot + "/SoundFonts/seqplay-gm.sf2", packageRoot + "/SoundFonts/click.sf2"]
    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    private func temporaryCopy(of source: String, damage: (inout [UInt8]) -> Void) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        damage(&bytes)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sf-\(UUID().uuidString).sf2").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// Offset of a chunk's data in a font (first occurrence of its id).
    private func offset(of id: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(id.utf8)
        return (0..<(bytes.count - 8)).first { bytes[$0..<$0 + 4].elementsEqual(pattern) }.map { $0 + 8 }
    }

    func testPresetsAgreeWithFluidSynth() throws {
        for font in Self.fonts where FileManager.default.fileExists(atPath: font) {
            let contents = try SoundFontContents(path: font)
            let synth = try Synthesizer()
            try synth.loadSoundFont(at: font)
            let ours = Set(contents.presets.map { "\($0.bank):\($0.program) \($0.name)" })
            let theirs = Set(synth.presets.map { "\($0.bank):\($0.program) \($0.name)" })
            XCTAssertEqual(ours, theirs, font)
            XCTAssertEqual(contents.format, "SF2")
            XCTAssertEqual(contents.problems, [], font)
            XCTAssertGreaterThan(contents.samples, 0)
            XCTAssertGreaterThan(contents.zones, contents.presets.count)
        }
    }

    func testHeaderOfTheShippedFont() throws {
        let contents = try SoundFontContents(path: Self.packageRoot + "/SoundFonts/seqplay-gm.sf2")
        XCTAssertEqual(contents.name, "seqplay GM")
        XCTAssertEqual(contents.version, "2.1")
        XCTAssertTrue(contents.copyright?.contains("MIT") ?? false)
        XCTAssertEqual(contents.fileSize, 1_271_144)
    }

    func testBadZoneIndexIsAProblemNotACrash() throws {
        let font = Self.packageRoot + "/SoundFonts/seqplay-gm.sf2"
        let path = try temporaryCopy(of: font) { bytes in
            let phdr = self.offset(of: "phdr", in: bytes)!
            bytes[phdr + 38 + 24] = 0xFF  // the second preset's first zone far past the bag table
            bytes[phdr + 38 + 25] = 0x7F
        }
        let contents = try SoundFontContents(path: path)
        XCTAssertTrue(contents.problems.contains { $0.contains("preset 0 has zones") }, "\(contents.problems)")
    }

    func testSampleOutsideTheSampleDataIsAProblem() throws {
        let path = try temporaryCopy(of: Self.packageRoot + "/SoundFonts/seqplay-gm.sf2") { bytes in
            let shdr = self.offset(of: "shdr", in: bytes)!
            for index in 24..<28 { bytes[shdr + index] = 0xFF }  // sample 0 ends at 0xFFFFFFFF
        }
        let contents = try SoundFontContents(path: path)
        XCTAssertTrue(contents.problems.contains { $0.hasPrefix("sample 0 ") }, "\(contents.problems)")
    }

    func testTruncatedAndForeignFilesAreErrors() throws {
        let font = Self.packageRoot + "/SoundFonts/seqplay-gm.sf2"
        let truncated = try temporaryCopy(of: font) { $0.removeLast(1000) }
        XCTAssertThrowsError(try SoundFontContents(path: truncated)) { error in
            guard case .truncated = (error as? SoundFontError)?.problem else { return XCTFail("\(error)") }
        }
        let wave = try temporaryCopy(of: font) { $0.replaceSubrange(8..<12, with: Array("WAVE".utf8)) }
        XCTAssertThrowsError(try SoundFontContents(path: wave)) { error in
            XCTAssertEqual((error as? SoundFontError)?.problem, .notSoundFont(form: "WAVE"))
        }
    }

    /// Random damage to the header and tables never crashes the reader: it reads or throws.
    func testRandomDamageNeverCrashes() throws {
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.packageRoot + "/SoundFonts/click.sf2")))
        var generator = SystemRandomNumberGenerator()
        var read = 0, refused = 0
        for _ in 0..<300 {
            let path = try temporaryCopy(of: Self.packageRoot + "/SoundFonts/click.sf2") { bytes in
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<source.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            if (try? SoundFontContents(path: path)) != nil { read += 1 } else { refused += 1 }
        }
        XCTAssertEqual(read + refused, 300)
    }
}
