import Foundation

/// What an earlier run's manifest said of its outputs, read before a rerun rewrites the manifest
/// (`BatchManifest`): so the rerun keeps what it knew of the outputs it does not render again (their
/// loudness, peak, parts, stems…) and which of their stems were silent (not written, so not missing).
public struct EarlierManifest: Sendable {
    /// Each output's line (a JSON object), by output path; a later line wins.
    private let lines: [String: String]

    /// Knows nothing.
    public init() {
        lines = [:]
    }

    /// Reads the manifest at `path` when it is a regular file (a symbolic link is followed); there
    /// being none, or a device, FIFO or standard output, it knows nothing. Lines that are not JSON
    /// objects naming an `output` are passed over.
    public init(path: String) {
        var status = stat()
        var lines: [String: String] = [:]
        if path != "-", stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, let data = FileManager.default.contents(atPath: path) {
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                guard let entry = Self.object(String(line)), let output = entry["output"] as? String, !output.isEmpty else { continue }
                lines[output] = String(line)
            }
        }
        self.lines = lines
    }

    /// What it said of `output`, provided the file there still has the frames and sample rate it
    /// said (a file since replaced is not described by it).
    func entry(for output: String, frames: Int64, sampleRate: Int) -> [String: Any]? {
        guard let entry = lines[output].flatMap(Self.object),
              (entry["frames"] as? NSNumber)?.int64Value == frames, (entry["sample_rate"] as? NSNumber)?.intValue == sampleRate
        else { return nil }
        return entry
    }

    /// The names of the stems it listed as silent for `output`.
    func silentStems(of output: String) -> Set<String> {
        let stems = lines[output].flatMap(Self.object)?["stems"] as? [[String: Any]] ?? []
        return Set(stems.compactMap { $0["silent"] as? Bool == true ? $0["name"] as? String : nil })
    }

    private static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
