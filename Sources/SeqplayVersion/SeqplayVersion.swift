/// The version of seqplay, defined once: `seqplay --version` prints it, and a program using the
/// library can read it.
public enum SeqplayVersion {
    /// Semantic version of this build.
    public static let string = "0.12.0"
}
