import MIDIFile

/// A piano-roll picture of a song: time across (bar lines numbered, tempo and time-signature
/// changes marked), pitch up, one colour per track (per channel for single-track files) with a
/// legend, drums as ticks, velocity as opacity, the title and duration on top.
public struct PianoRoll {
    public let timeline: SongTimeline
    public var title: String
    /// The part of the song drawn, in seconds (default: all of it).
    public var start: Double = 0
    public var end: Double
    public var width = 1600
    public var height = 800

    public init(sequence: MusicSequence, title: String) {
        timeline = SongTimeline(sequence: sequence)
        self.title = title
        end = max(timeline.duration, 0.001)
    }

    /// Where notes are drawn: left, top, width, height in pixels.
    public var plotArea: (x: Double, y: Double, width: Double, height: Double) {
        (56, 64, Double(width) - 56 - 16, Double(height) - 64 - 28)
    }

    /// The keys shown, bottom to top: one below the lowest note to one above the highest.
    public var keys: ClosedRange<Int> {
        let shown = timeline.notes.filter { $0.end >= start && $0.start <= end }
        guard let low = shown.map(\.key).min(), let high = shown.map(\.key).max() else { return 59...73 }
        return max(0, low - 1)...min(127, high + 1)
    }

    /// The colour group of a note: its channel for single-track (format 0) songs, else its track.
    private var groupsByChannel: Bool { Set(timeline.notes.map(\.track)).count <= 1 }

    static let palette: [UInt32] = [0x1F77B4, 0xD62728, 0x2CA02C, 0xFF7F0E, 0x9467BD, 0x8C564B, 0xE377C2, 0x17BECF,
                                    0xBCBD22, 0x7F7F7F, 0x393B79, 0xAD494A, 0x637939, 0x8C6D31, 0x843C39, 0x7B4173]
    public static let background = Color(hex: 0xFFFFFF)

    /// The colour of group `index` (track or channel).
    public static func color(ofGroup index: Int) -> Color { Color(hex: palette[index % palette.count]) }

    /// Draws the picture to `path` (see `Canvas`: written through `OutputFile`); `inputs` are the files
    /// it is made from, which `path` may not be.
    public func draw(to path: String, format: Canvas.Format, protecting inputs: [String] = []) throws(DrawingError) {
        let canvas = try Canvas(width: width, height: height, format: format, path: path, protecting: inputs)
        let plot = plotArea
        let span = max(end - start, 0.001)
        func x(_ seconds: Double) -> Double { plot.x + (seconds - start) / span * plot.width }
        let keys = keys
        let rowHeight = plot.height / Double(keys.count)
        func y(_ key: Int) -> Double { plot.y + Double(keys.upperBound - key) * rowHeight }
        let ink = Color(hex: 0x222222), grid = Color(hex: 0xDDDDDD)
        let groupsByChannel = groupsByChannel  // once: it looks at every note

        canvas.fill(x: 0, y: 0, width: Double(width), height: Double(height), color: Self.background)
        for key in keys where [1, 3, 6, 8, 10].contains(key % 12) {
            canvas.fill(x: plot.x, y: y(key), width: plot.width, height: rowHeight, color: Color(hex: 0xF4F4F4))
        }
        for key in keys where key % 12 == 0 {
            canvas.text("C\(key / 12 - 1)", x: 8, y: y(key) + rowHeight, size: 11, color: ink)
        }
        let bars = timeline.barStarts.enumerated().filter { $0.element >= start && $0.element <= end }
        let step = max(1, Int((Double(bars.count) * 40 / plot.width).rounded(.up)))
        for (index, seconds) in bars where index % step == 0 {
            canvas.line(from: (x(seconds), plot.y), to: (x(seconds), plot.y + plot.height), color: grid)
            canvas.text("\(index + 1)", x: x(seconds) + 2, y: plot.y + plot.height + 16, size: 11, color: ink)
        }
        var labelEnd = -Double.infinity
        for change in (timeline.tempoChanges + timeline.timeSignatures).sorted(by: { $0.seconds < $1.seconds })
        where change.seconds >= start && change.seconds <= end && x(change.seconds) > labelEnd {
            canvas.line(from: (x(change.seconds), plot.y - 14), to: (x(change.seconds), plot.y + plot.height), color: Color(hex: 0x999999), dashed: true)
            canvas.text(change.label, x: x(change.seconds) + 2, y: plot.y - 4, size: 11, color: ink)
            labelEnd = x(change.seconds) + canvas.textWidth(change.label, size: 11) + 6
        }

        canvas.clip(x: plot.x, y: plot.y, width: plot.width, height: plot.height)
        for note in timeline.notes where note.end >= start && note.start <= end && keys.contains(note.key) {
            let group = groupsByChannel ? note.channel : note.track
            let color = Self.color(ofGroup: group).with(alpha: 0.35 + 0.65 * Double(note.velocity) / 127)
            if note.channel == 9 {
                canvas.fill(x: x(note.start), y: y(note.key), width: 2, height: rowHeight, color: color)
            } else {
                canvas.fill(x: x(note.start), y: y(note.key), width: max(1, x(note.end) - x(note.start)), height: rowHeight, color: color)
            }
        }
        canvas.unclip()
        canvas.line(from: (plot.x, plot.y + plot.height), to: (plot.x + plot.width, plot.y + plot.height), color: ink)

        let minutes = Int(timeline.duration) / 60, seconds = Int(timeline.duration) % 60
        let heading = "\(title) — \(minutes):\(seconds < 10 ? "0" : "")\(seconds), \(timeline.barStarts.count) bars"
        canvas.text(heading, x: 8, y: 20, size: 15, color: ink, bold: true)
        var legendX = 8.0
        let groups = Set(timeline.notes.map { groupsByChannel ? $0.channel : $0.track }).sorted()
        for group in groups {
            let name = groupsByChannel ? "ch \(group + 1)" : (timeline.trackNames[group].map { "\(group): \($0)" } ?? "track \(group)")
            canvas.fill(x: legendX, y: 30, width: 10, height: 10, color: Self.color(ofGroup: group))
            canvas.text(name, x: legendX + 14, y: 39, size: 11, color: ink)
            legendX += 24 + canvas.textWidth(name, size: 11)
            if legendX > Double(width) - 100 { break }
        }
        try canvas.finish()
    }
}
