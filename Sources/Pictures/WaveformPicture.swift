import AudioFiles

/// A picture of rendered audio over time: the peak envelope and the RMS level of each pixel
/// column, with the song's bar lines when its timeline is given.
public struct WaveformPicture {
    /// Per pixel column: the lowest and highest sample and the RMS level (mono mix).
    public let columns: [(minimum: Float, maximum: Float, rms: Float)]
    public let duration: Double
    public var title: String
    public var barStarts: [Double] = []
    public let width: Int
    public var height = 300

    public static let background = Color(hex: 0xFFFFFF)
    public static let peakColor = Color(hex: 0x7FA7D9)
    public static let levelColor = Color(hex: 0x1F4E8C)

    /// Reads the audio file at `path` once, summarising it into `width` columns.
    public init(audioPath path: String, width: Int = 1600, title: String) throws(AudioFileError) {
        let reader = try AudioFileReader(path: path)
        self.width = width
        self.title = title
        duration = Double(reader.frameCount) / Double(max(1, reader.sampleRate))
        let plotWidth = max(1, width - Self.margin * 2)
        let framesPerColumn = max(1, Int((Double(reader.frameCount) / Double(plotWidth)).rounded(.up)))
        var columns: [(minimum: Float, maximum: Float, rms: Float)] = []
        var low: Float = 0, high: Float = 0, squares: Double = 0, filled = 0
        let channels = reader.channelCount
        var buffer = [Float](repeating: 0, count: 65_536 * channels)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { (pointer) throws(AudioFileError) -> Int in
                try reader.read(into: pointer.baseAddress!, maxFrames: 65_536)
            }
            if frames == 0 { break }
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels { sum += buffer[frame * channels + channel] }
                let value = sum / Float(channels)
                low = min(low, value); high = max(high, value); squares += Double(value * value); filled += 1
                if filled == framesPerColumn {
                    columns.append((low, high, Float((squares / Double(filled)).squareRoot())))
                    low = 0; high = 0; squares = 0; filled = 0
                }
            }
        }
        if filled > 0 { columns.append((low, high, Float((squares / Double(filled)).squareRoot()))) }
        self.columns = columns
    }

    static let margin = 16

    /// Draws the picture to `path` (see `Canvas`: written through `OutputFile`); `inputs` are the files
    /// it is made from, which `path` may not be.
    public func draw(to path: String, format: Canvas.Format, protecting inputs: [String] = []) throws(DrawingError) {
        let canvas = try Canvas(width: width, height: height, format: format, path: path, protecting: inputs)
        let left = Double(Self.margin), top = 36.0, plotWidth = Double(width - Self.margin * 2), plotHeight = Double(height) - top - 24
        let middle = top + plotHeight / 2, scale = plotHeight / 2
        canvas.fill(x: 0, y: 0, width: Double(width), height: Double(height), color: Self.background)
        let ink = Color(hex: 0x222222)
        let columnSeconds = duration / Double(max(1, columns.count))
        func x(_ seconds: Double) -> Double { left + seconds / max(columnSeconds, 1e-9) }
        let step = max(1, Int((Double(barStarts.count) * 40 / plotWidth).rounded(.up)))
        for (index, seconds) in barStarts.enumerated() where index % step == 0 && seconds <= duration {
            canvas.line(from: (x(seconds), top), to: (x(seconds), top + plotHeight), color: Color(hex: 0xDDDDDD))
            canvas.text("\(index + 1)", x: x(seconds) + 2, y: top + plotHeight + 16, size: 11, color: ink)
        }
        for (index, column) in columns.enumerated() {
            let columnX = left + Double(index)
            let high = Double(min(1, max(-1, column.maximum))), low = Double(min(1, max(-1, column.minimum)))
            canvas.fill(x: columnX, y: middle - high * scale, width: 1, height: max(1, (high - low) * scale), color: Self.peakColor)
            let rms = Double(min(1, column.rms))
            canvas.fill(x: columnX, y: middle - rms * scale, width: 1, height: max(0, rms * 2 * scale), color: Self.levelColor)
        }
        canvas.line(from: (left, middle), to: (left + plotWidth, middle), color: Color(hex: 0xAAAAAA))
        let minutes = Int(duration) / 60, seconds = Int(duration) % 60
        canvas.text("\(title) — \(minutes):\(seconds < 10 ? "0" : "")\(seconds)", x: 8, y: 22, size: 15, color: ink, bold: true)
        try canvas.finish()
    }
}
