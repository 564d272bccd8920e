import Foundation
import MIDIFile

extension SequenceReport {
    /// The tempo map as a table: every tempo and time signature, by tick (time signatures first at a tick).
    var tempoMapLines: [String] {
        let rows = (timeSignatures.map { ($0.tick, 0, $0.position, $0.seconds, "\($0.value) time") }
            + tempos.map { ($0.tick, 1, $0.position, $0.seconds, ($0.bpm.map { String(format: "%.3f BPM", $0) } ?? "0 µs") + " (\($0.microsecondsPerQuarter) µs per quarter)") })
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        guard rows.count > 2 || tempos.count > 1 else { return [] }
        let header = ["tick", "bar:beat:tick", "seconds", "change"]
        let cells = rows.map { [String($0.0), $0.2, String(format: "%.3f", $0.3), $0.4] }
        let widths = (0..<3).map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            "  " + (0..<3).map { row[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined() + row[3]
        }
        return ["Tempo map:", line(header)] + cells.map(line)
    }
}
