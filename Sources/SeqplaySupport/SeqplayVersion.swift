/// The version of seqplay, defined once: `seqplay --version` prints it, `Scripts/package` names the Debian
/// package and the tarball after it, and a program using the library can read it. It is the last release's
/// (CHANGELOG.md, API/baseline) until the next release changes it; `VersionTests` checks that they agree.
package enum SeqplayVersion {
    /// Semantic version of this build.
    package static let string = "0.14.0"
}
