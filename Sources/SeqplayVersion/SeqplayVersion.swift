/// The version of seqplay, defined once: `seqplay --version` prints it, and a program using the
/// library can read it.
package enum SeqplayVersion {
    /// Semantic version of this build.
    package static let string = "0.12.0"
}
