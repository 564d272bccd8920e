import Sampler
import Foundation
import SoundFontFile
import XCTest

/// Damaged copies of a real SoundFont must be refused with a `SoundFontError` naming the file.
final class CorruptSoundFontTests: XCTestCase {
    static let source = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    var directory: URL!

    override func setUpWithError() throws {
        guard FileManager.default.fileExists(atPath: Self.source) else {
            throw XCTSkip("\(Self.source) is not installed (apt-get install timgm6mb-soundfont)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Writes a damaged copy of the source font and returns the error loading it throws.
    func loadError(_ name: String, damage: (inout Data) throws -> Void) throws -> SoundFontError.Problem {
        var data = try Data(contentsOf: URL(fileURLWithPath: Self.source))
        try damage(&data)
        let path = directory.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        let synth = try Synthesizer()
        do {
            try synth.loadSoundFont(at: path)
        } catch {
            XCTAssertEqual(error.path, path)
            XCTAssertTrue(error.description.contains(path), error.description)
            XCTAssertTrue(synth.soundFonts.isEmpty)
            return error.problem
        }
        XCTFail("\(name) loaded")
        return .rejectedByFluidSynth(reason: nil)
    }

    /// The offset of the four-byte chunk id `id` (searched from the end, where `pdta` lives).
    func offset(of id: String, in data: Data) throws -> Int {
        try XCTUnwrap(data.range(of: Data(id.utf8), options: .backwards)?.lowerBound)
    }

    func setUInt32(_ value: UInt32, at offset: Int, in data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) }
    }

    func testTruncatedFont() throws {
        let problem = try loadError("truncated.sf2") { $0 = $0.prefix($0.count / 2) }
        guard case .truncated(let declared, let actual) = problem else { return XCTFail("\(problem)") }
        XCTAssertEqual(declared, 5_969_788)
        XCTAssertEqual(actual, 5_969_788 / 2)
    }

    func testTruncatedToAFewBytes() throws {
        XCTAssertEqual(try loadError("stub.sf2") { $0 = $0.prefix(6) }, .notRIFF)
    }

    func testWrongForm() throws {
        XCTAssertEqual(try loadError("wave.sf2") { $0.replaceSubrange(8..<12, with: Data("WAVE".utf8)) },
                       .notSoundFont(form: "WAVE"))
    }

    func testListSizeLargerThanTheFile() throws {
        let problem = try loadError("oversized-sdta.sf2") { data in
            let sdta = try self.offset(of: "sdta", in: data)
            self.setUInt32(0x7FFF_FFF0, at: sdta - 4, in: &data)
        }
        guard case .chunkOverrun(let chunk, let size, _) = problem else { return XCTFail("\(problem)") }
        XCTAssertEqual(chunk, "sfbk/LIST")
        XCTAssertEqual(size, 0x7FFF_FFF0)
    }

    func testSampleHeaderTableNotAWholeNumberOfRecords() throws {
        let problem = try loadError("short-shdr.sf2") { data in
            let shdr = try self.offset(of: "shdr", in: data)
            let size = data[shdr + 4..<shdr + 8].reversed().reduce(0) { $0 << 8 | UInt32($1) }
            self.setUInt32(size - 2, at: shdr + 4, in: &data)
        }
        guard case .badRecordSize(let chunk, _, let recordSize) = problem else { return XCTFail("\(problem)") }
        XCTAssertEqual(chunk, "shdr")
        XCTAssertEqual(recordSize, 46)
    }

    func testMissingPresetData() throws {
        XCTAssertEqual(try loadError("no-pdta.sf2") { data in
            let pdta = try self.offset(of: "pdta", in: data)
            data.replaceSubrange(pdta..<pdta + 4, with: Data("junk".utf8))
        }, .missingChunk("LIST pdta"))
    }

    /// A font whose structure is whole but whose preset table FluidSynth refuses: the error carries
    /// FluidSynth's reason, which is not logged as well.
    func testFluidSynthsReasonIsInTheError() throws {
        XCTAssertEqual(try loadError("pbag.sf2") { data in
            let pbag = try self.offset(of: "pbag", in: data)
            data.replaceSubrange(pbag + 8..<pbag + 10, with: [0xFF, 0xFF])  // first record's generator index
        }, .rejectedByFluidSynth(reason: "Preset bag generator indices not monotonic"))
    }

    func testMissingFile() throws {
        let synth = try Synthesizer()
        let path = directory.appendingPathComponent("absent.sf2").path
        XCTAssertThrowsError(try synth.loadSoundFont(at: path)) { error in
            XCTAssertEqual(error as? SoundFontError, SoundFontError(path: path, problem: .unreadable("no such file")))
        }
    }
}
