import Foundation

/// Finds the SoundFont to play with when no `--sf2` is given, in this order:
/// 1. `$SEQPLAY_SOUNDFONT`;
/// 2. Debian's default General MIDI font, `/usr/share/sounds/sf2/default-GM.sf2`;
/// 3. the font shipped with seqplay, `seqplay-gm.sf2`: in `SoundFonts/` of the package checkout the
///    executable was built in (any directory above the executable), or installed as
///    `<prefix>/share/seqplay/seqplay-gm.sf2` next to `<prefix>/bin/seqplay`.
struct SoundFontLocator {
    static let environmentVariable = "SEQPLAY_SOUNDFONT"
    static let debianDefault = "/usr/share/sounds/sf2/default-GM.sf2"
    static let shippedFileName = "seqplay-gm.sf2"

    /// A font found, and why it was chosen (for messages).
    struct Found: Equatable {
        var path: String
        var origin: String
    }

    var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The running executable, symbolic links resolved.
    var executablePath: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    var fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }

    /// The fonts to load: `given` (the `--sf2` files) if any, else the located font; reports and
    /// exits with `ExitCode.badSoundFont` when there is none.
    static func paths(given: [String]) -> [String] {
        if !given.isEmpty { return given }
        let locator = SoundFontLocator()
        guard let found = locator.locate() else {
            CommandLineOutput.fail("no SoundFont given and none found (looked at \(locator.searchDescription)); use --sf2 FILE", .badSoundFont)
        }
        return [found.path]
    }

    /// The first font of the search order, or nil when none is present. A `$SEQPLAY_SOUNDFONT`
    /// that names a missing file is still returned, so loading it reports the mistake.
    func locate() -> Found? {
        if let path = environment[Self.environmentVariable], !path.isEmpty {
            return Found(path: path, origin: "$\(Self.environmentVariable)")
        }
        if fileExists(Self.debianDefault) {
            return Found(path: Self.debianDefault, origin: "Debian's default General MIDI font")
        }
        return shippedFontCandidates.first(where: fileExists).map { Found(path: $0, origin: "the font shipped with seqplay") }
    }

    /// Where the shipped font may be: installed beside the executable's prefix, then `SoundFonts/`
    /// in each directory above the executable (a package checkout's `.build/<triple>/<config>/`).
    var shippedFontCandidates: [String] {
        let binDirectory = URL(fileURLWithPath: executablePath).deletingLastPathComponent()
        var candidates = [binDirectory.deletingLastPathComponent()
            .appendingPathComponent("share/seqplay/\(Self.shippedFileName)").path]
        var directory = binDirectory
        while directory.path != "/" {
            candidates.append(directory.appendingPathComponent("SoundFonts/\(Self.shippedFileName)").path)
            directory = directory.deletingLastPathComponent()
        }
        return candidates
    }

    /// Where the search looked, for the message when nothing was found.
    var searchDescription: String {
        "$\(Self.environmentVariable) (not set), \(Self.debianDefault), "
            + "\(Self.shippedFileName) in <prefix>/share/seqplay/ or SoundFonts/ of the seqplay checkout"
    }
}
