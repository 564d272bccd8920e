/// One of N deterministic slices of a batch (`--shard I/N`), so machines that share no coordinator
/// (GNU parallel over ssh, Slurm job arrays, Kubernetes indexed Jobs) split a corpus between them:
/// an input belongs to slice 1 + FNV-1a(relative path) mod N, whatever order the inputs came in and
/// whichever machine asks.
public struct BatchShard: Hashable, Sendable, CustomStringConvertible {
    /// 1...count.
    public let index: Int
    public let count: Int

    /// nil unless 1 ≤ index ≤ count.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether `input` is in this slice.
    public func contains(_ input: BatchInput) -> Bool {
        Int(Self.hash(input.relativePath) % UInt64(count)) + 1 == index
    }

    /// 64-bit FNV-1a of the UTF-8 bytes: the same on every machine and every run.
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
