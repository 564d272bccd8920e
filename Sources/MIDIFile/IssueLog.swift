/// Collects the problems met while reading one file: in lenient mode a repaired problem is kept as a
/// warning, in strict mode it is thrown.
struct IssueLog {
    let file: String
    let strict: Bool
    /// Whether warnings are kept (not when the same bytes are decoded a second time).
    let keepsWarnings: Bool
    private(set) var warnings: [MIDIFileIssue] = []

    init(file: String, strict: Bool, keepsWarnings: Bool = true) {
        self.file = file
        self.strict = strict
        self.keepsWarnings = keepsWarnings
    }

    /// The error for a problem that cannot be repaired.
    func error(_ reason: MIDIFileIssue.Reason, track: Int?, offset: Int) -> MIDIFileIssue {
        MIDIFileIssue(file: file, track: track, offset: offset, reason: reason)
    }

    /// Records a problem that the reader repaired; throws it in strict mode.
    mutating func repaired(_ reason: MIDIFileIssue.Reason, track: Int?, offset: Int) throws(MIDIFileIssue) {
        let issue = error(reason, track: track, offset: offset)
        if strict { throw issue }
        if keepsWarnings { warnings.append(issue) }
    }

    /// Adds the warnings of a log kept for a tentative reading that the reader keeps.
    mutating func append(_ other: IssueLog) {
        warnings += other.warnings
    }
}
