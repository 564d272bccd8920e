import SoundFontFile
import XCTest

/// The default SoundFont search: its order, and the error (not an exit) when it finds nothing.
final class SoundFontLocatorTests: XCTestCase {
    private func locator(environment: [String: String] = [:], existing: Set<String>) -> SoundFontLocator {
        SoundFontLocator(environment: environment, executablePath: "/opt/seqplay/.build/debug/seqplay",
                         fileExists: { existing.contains($0) })
    }

    func testGivenFontsWinOverTheSearch() throws {
        let search = locator(environment: [SoundFontLocator.environmentVariable: "/env.sf2"], existing: [])
        XCTAssertEqual(try search.paths(given: ["a.sf2", "b.sf2"]), ["a.sf2", "b.sf2"])
    }

    func testSearchOrder() throws {
        let shipped = "/opt/seqplay/SoundFonts/seqplay-gm.sf2"
        let everything: Set<String> = [SoundFontLocator.debianDefault, shipped]
        XCTAssertEqual(try locator(environment: ["SEQPLAY_SOUNDFONT": "/missing.sf2"], existing: everything).paths(given: []),
                       ["/missing.sf2"], "the variable wins even when its file is missing")
        XCTAssertEqual(locator(existing: everything).locate()?.path, SoundFontLocator.debianDefault)
        XCTAssertEqual(locator(existing: [shipped]).locate(), .init(path: shipped, origin: "the font shipped with seqplay"))
        XCTAssertEqual(locator(existing: ["/opt/seqplay/.build/share/seqplay/seqplay-gm.sf2"]).locate()?.path,
                       "/opt/seqplay/.build/share/seqplay/seqplay-gm.sf2", "installed beside <prefix>/bin")
    }

    /// A packaged seqplay (/usr/bin/seqplay) plays with /usr/share/seqplay/seqplay-gm.sf2 though Debian's default
    /// font is there too (libfluidsynth3 depends on timgm6mb-soundfont, which provides default-GM.sf2).
    func testTheFontInstalledWithSeqplayWinsOverDebiansDefault() {
        let installed = "/usr/share/seqplay/seqplay-gm.sf2"
        let packaged = SoundFontLocator(environment: [:], executablePath: "/usr/bin/seqplay",
                                        fileExists: { [installed, SoundFontLocator.debianDefault].contains($0) })
        XCTAssertEqual(packaged.locate(), .init(path: installed, origin: "the font installed with seqplay"))
        XCTAssertEqual(SoundFontLocator(environment: ["SEQPLAY_SOUNDFONT": "/env.sf2"], executablePath: "/usr/bin/seqplay",
                                        fileExists: { _ in true }).locate()?.path, "/env.sf2", "the variable still wins")
    }

    func testNothingFoundThrows() {
        XCTAssertThrowsError(try locator(environment: ["SEQPLAY_SOUNDFONT": ""], existing: []).paths(given: [])) { error in
            guard let notFound = error as? SoundFontLocator.NotFound else { return XCTFail("\(error)") }
            XCTAssertEqual("\(notFound)", "no SoundFont given and none found (looked at $SEQPLAY_SOUNDFONT (not set), "
                + "seqplay-gm.sf2 in <prefix>/share/seqplay/, /usr/share/sounds/sf2/default-GM.sf2, seqplay-gm.sf2 in SoundFonts/ of the seqplay checkout)")
        }
    }
}
