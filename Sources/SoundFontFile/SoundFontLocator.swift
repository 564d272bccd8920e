import Foundation

/// Finds the SoundFont to play with when none is given, in this order:
/// 1. `$SEQPLAY_SOUNDFONT`;
/// 2. the font installed with seqplay, `<prefix>/share/seqplay/seqplay-gm.sf2` next to `<prefix>/bin/seqplay`
///    (the Debian package, the tarball, `Scripts/install`): an installed seqplay plays with the font it came
///    with, whichever General MIDI font the system's default is;
/// 3. Debian's default General MIDI font, `/usr/share/sounds/sf2/default-GM.sf2`;
/// 4. the font shipped with seqplay, `seqplay-gm.sf2`, in `SoundFonts/` of the package checkout the
///    executable was built in (any directory above the executable).
public struct SoundFontLocator: Sendable {
    public static let environmentVariable = "SEQPLAY_SOUNDFONT"
    public static let debianDefault = "/usr/share/sounds/sf2/default-GM.sf2"
    public static let shippedFileName = "seqplay-gm.sf2"

    /// A font found, and why it was chosen (for messages).
    public struct Found: Equatable, Sendable {
        public var path: String
        public var origin: String
        public init(path: String, origin: String) { self.path = path; self.origin = origin }
    }

    /// No font was given and the search found none; the description says where it looked.
    public struct NotFound: Error, Equatable, Sendable, CustomStringConvertible {
        /// Where the search looked.
        public var searchDescription: String
        public var description: String { "no SoundFont given and none found (looked at \(searchDescription))" }
    }

    /// The environment the search reads `$SEQPLAY_SOUNDFONT` from.
    public var environment: [String: String]
    /// The running executable, symbolic links resolved.
    public var executablePath: String
    /// Whether a file exists (the search asks nothing else of the file system).
    public var fileExists: @Sendable (String) -> Bool

    /// A search from the running process: its environment and executable, and the real file system.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                executablePath: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
                fileExists: @escaping @Sendable (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) {
        self.environment = environment
        self.executablePath = executablePath
        self.fileExists = fileExists
    }

    /// The fonts to load: `given` if any, else the located font; throws `NotFound` when there is none.
    public func paths(given: [String]) throws(NotFound) -> [String] {
        if !given.isEmpty { return given }
        guard let found = locate() else { throw NotFound(searchDescription: searchDescription) }
        return [found.path]
    }

    /// The first font of the search order, or nil when none is present. A `$SEQPLAY_SOUNDFONT`
    /// that names a missing file is still returned, so loading it reports the mistake.
    public func locate() -> Found? {
        if let path = environment[Self.environmentVariable], !path.isEmpty {
            return Found(path: path, origin: "$\(Self.environmentVariable)")
        }
        let shipped = shippedFontCandidates
        if let installed = shipped.first, fileExists(installed) {
            return Found(path: installed, origin: "the font installed with seqplay")
        }
        if fileExists(Self.debianDefault) {
            return Found(path: Self.debianDefault, origin: "Debian's default General MIDI font")
        }
        return shipped.dropFirst().first(where: fileExists).map { Found(path: $0, origin: "the font shipped with seqplay") }
    }

    /// Where the shipped font may be: installed beside the executable's prefix, then `SoundFonts/`
    /// in each directory above the executable (a package checkout's `.build/<triple>/<config>/`).
    public var shippedFontCandidates: [String] {
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
    public var searchDescription: String {
        "$\(Self.environmentVariable) (not set), \(Self.shippedFileName) in <prefix>/share/seqplay/, "
            + "\(Self.debianDefault), \(Self.shippedFileName) in SoundFonts/ of the seqplay checkout"
    }
}
