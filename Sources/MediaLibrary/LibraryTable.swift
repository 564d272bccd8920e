import Foundation

/// Library results as `seqplay library` prints them: aligned columns for people (`songs`, `presets`,
/// `groups`: a header line, then a row each), JSON for programs (`json`).
///
///     let rows = try library.songs(LibraryQuery(where: "tempo >= 120"))
///     print(LibraryTable.songs(rows))
public enum LibraryTable {
    /// `object` (rows' `values`, groups as dictionaries) as pretty JSON, keys sorted, slashes unescaped.
    public static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Songs: duration, bars, tempo, time and key signature, title (one line, 40 characters), path.
    public static func songs(_ rows: [LibraryRow]) -> String {
        table(["duration", "bars", "tempo", "time", "key", "title", "path"], rows.map { row in
            let values = row.values
            return [clock(values["duration"] as? Double), number(values["bars"] as? Double), number(values["tempo"] as? Double),
                    (values["time_signature"] as? [String])?.first ?? "", (values["key"] as? [String])?.first ?? "",
                    oneLine(values["title"] as? String ?? ""), row.path]
        })
    }

    /// Presets: bank:program, name, font, path.
    public static func presets(_ rows: [LibraryRow]) -> String {
        table(["bank:program", "name", "font", "path"], rows.map { row in
            ["\(row.values["bank"] ?? 0):\(row.values["program"] ?? 0)", row.values["name"] as? String ?? "",
             row.values["font"] as? String ?? "", row.path]
        })
    }

    /// Groups by `field`: its value, the songs and their total duration.
    public static func groups(_ groups: [LibraryGroup], field: String) -> String {
        table([field, "songs", "duration"], groups.map { [$0.value ?? "(none)", String($0.count), clock($0.totalDuration)] })
    }

    private static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 }.prefix(40))
    }

    private static func number(_ value: Double?) -> String {
        guard let value else { return "" }
        return value == value.rounded() ? String(Int64(value)) : String(format: "%.1f", value)
    }

    /// "m:ss" for seconds, or "h:mm:ss".
    private static func clock(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds < 1e9 else { return "" }
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
