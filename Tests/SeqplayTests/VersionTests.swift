import Foundation
import TestSupport
import XCTest

/// One version everywhere: what `seqplay --version` prints (Sources/SeqplaySupport/SeqplayVersion.swift) is the release API/baseline
/// names, the newest release of CHANGELOG.md (from the same commit), the version the README, the Swift library
/// guide and Examples/RenderSong tell users to depend on and the package file the README installs
/// (Scripts/package names it after `--version`). Docs/packaging.md says how a release changes them together.
final class VersionTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// A release heading of CHANGELOG.md: `## 0.14.0 — 2026-11-26 (commit db0622e)`.
    private static let releaseHeading = #"(?m)^## (\d+\.\d+\.\d+) — \d{4}-\d{2}-\d{2} \(commit ([0-9a-f]{7,40})\)$"#

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    private func version() throws -> String {
        let run = try runSeqplay(["--version"])
        XCTAssertEqual(run.status, 0, run.standardError)
        return run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every match of `pattern`'s first capture group in `text`.
    private func captures(_ pattern: String, in text: String, group: Int = 1) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: group), in: text)!])
        }
    }

    /// Version strings as numbers, to compare releases.
    private func numbers(_ version: String) -> [Int] { version.split(separator: ".").compactMap { Int($0) } }

    func testTheVersionIsTheReleaseOfTheAPIBaselineAndTheChangelog() throws {
        let version = try version()
        XCTAssertEqual(numbers(version).count, 3, "'\(version)' is not X.Y.Z")
        let baseline = try text("API/baseline").split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(baseline.first, version, "API/baseline names another release")
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.packageRoot.appendingPathComponent("API/\(version).txt").path),
                      "API/\(version).txt (the release's recorded API) is missing")

        let changelog = try text("CHANGELOG.md")
        let releases = try captures(Self.releaseHeading, in: changelog)
        let commits = try captures(Self.releaseHeading, in: changelog, group: 2)
        XCTAssertEqual(releases.first, version, "CHANGELOG.md's newest release")
        let baselineCommit = try XCTUnwrap(baseline.dropFirst().first, "API/baseline names no commit")
        XCTAssertTrue(commits.first.map { baselineCommit.hasPrefix($0) } ?? false,
                      "CHANGELOG.md's newest release is from commit \(commits.first ?? "none"), API/baseline's from \(baselineCommit)")
        XCTAssertEqual(releases, Array(releases.sorted { numbers($0).lexicographicallyPrecedes(numbers($1)) }.reversed()),
                       "CHANGELOG.md lists its releases newest first")
        XCTAssertEqual(Set(releases).count, releases.count, "a release listed twice")
        let unreleased = changelog.range(of: "\n## Unreleased\n")
        let newest = changelog.range(of: "\n## \(version) ")
        if let unreleased, let newest { XCTAssertLessThan(unreleased.lowerBound, newest.lowerBound, "Unreleased comes first") }
    }

    func testUsersAreToldToDependOnAndInstallThisVersion() throws {
        let version = try version()
        for path in ["README.md", "Docs/swift-library.md", "Examples/RenderSong/Package.swift"] {
            let named = try captures(#"from: "([^"]*)""#, in: try text(path))
            XCTAssertFalse(named.isEmpty, "\(path) names no version to depend on")
            XCTAssertEqual(Set(named), [version], "\(path): depend on \(named)")
        }
        let readme = try text("README.md")
        let packages = try captures(#"seqplay[_-](\d+\.\d+\.\d+)[_-]"#, in: readme)
        XCTAssertFalse(packages.isEmpty, "the README's set-up names no package file")
        XCTAssertEqual(Set(packages), [version], "the README's package files")
        let example = try text("Scripts/test-example")
        XCTAssertTrue(example.contains("Sources/SeqplaySupport/SeqplayVersion.swift"),
                      "Scripts/test-example tags its clone with the version it reads there")
    }

    /// A note is of a release of CHANGELOG.md, or of the next release when CHANGELOG.md's "Unreleased" links it.
    func testTheAPIChangeNotesAreOfReleasedVersions() throws {
        let version = try version()
        let changelog = try text("CHANGELOG.md")
        let releases = Set(try captures(Self.releaseHeading, in: changelog))
        let unreleased = changelog.components(separatedBy: "\n## Unreleased\n").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        let notes = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent("Docs").path)
            .filter { $0.hasPrefix("api-changes-") }
        XCTAssertFalse(notes.isEmpty)
        for note in notes {
            let titled = try captures(#"^# API changes in (\d+\.\d+\.\d+)"#, in: try text("Docs/\(note)"))
            let release = try XCTUnwrap(titled.first, "Docs/\(note) has no '# API changes in X.Y.Z' title")
            if unreleased.contains("Docs/\(note)") && !releases.contains(release) {
                XCTAssertTrue(numbers(version).lexicographicallyPrecedes(numbers(release)),
                              "Docs/\(note), linked from Unreleased, is of \(release), not of a release after \(version)")
                continue
            }
            XCTAssertTrue(releases.contains(release), "Docs/\(note): \(release) is not a release of CHANGELOG.md")
            XCTAssertFalse(numbers(version).lexicographicallyPrecedes(numbers(release)), "Docs/\(note) is of a release after \(version)")
        }
    }

    /// Where this clone has the release's tag, it is the commit API/baseline names (a clone without tags skips).
    func testTheReleaseTagIsTheBaselineCommit() throws {
        let version = try version()
        let tagged = try runCommand(URL(fileURLWithPath: "/usr/bin/git"),
                                    ["-C", Self.packageRoot.path, "rev-parse", "--verify", "--quiet", "refs/tags/\(version)^{commit}"])
        try XCTSkipIf(tagged.status != 0, "no tag \(version) in this clone")
        let baseline = try text("API/baseline").split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(tagged.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), baseline.dropFirst().first)
    }
}
