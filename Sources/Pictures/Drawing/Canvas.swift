import CCairo
import SeqplaySupport

/// A picture being drawn with cairo and written to a PNG, SVG or PDF file: filled rectangles,
/// lines and text in RGBA colours, in pixels (PNG, SVG) or points (PDF) from the top left.
///
/// The output is resolved (and refused: a directory, a read-only file, an input…) before anything
/// is drawn; cairo encodes into memory and `finish()` writes the bytes through `OutputFile`, so a
/// device or FIFO is written through and a file replaced atomically, never half-written.
public final class Canvas {
    /// The file formats a canvas writes, chosen by the output file's extension.
    public enum Format: String, Sendable, CaseIterable {
        case png, svg, pdf

        /// The format `path`'s extension names, or nil.
        public init?(path: String) {
            guard let dot = path.lastIndex(of: ".") else { return nil }
            self.init(rawValue: path[path.index(after: dot)...].lowercased())
        }
    }

    public let width: Int
    public let height: Int
    public let format: Format
    private let path: String
    private let target: OutputTarget
    /// What cairo has encoded so far (SVG and PDF as they are drawn, PNG at `finish()`).
    private let encoded = EncodedBytes()
    private let surface: OpaquePointer
    private let context: OpaquePointer
    private var finished = false

    /// A canvas `width` × `height` that `finish()` writes to `path` as `format`; `inputs` are the
    /// files the picture is made from, which `path` may not be.
    public init(width: Int, height: Int, format: Format, path: String, protecting inputs: [String] = []) throws(DrawingError) {
        guard (1...20_000).contains(width), (1...20_000).contains(height) else {
            throw .badSize(width: width, height: height)
        }
        do {
            target = try OutputTarget.resolve(path, protecting: inputs)
        } catch {
            throw .output(error)
        }
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        let sink = Unmanaged.passUnretained(encoded).toOpaque()
        switch format {
        case .png: surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg:
            surface = cairo_svg_surface_create_for_stream(EncodedBytes.append, sink, Double(width), Double(height))
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        case .pdf: surface = cairo_pdf_surface_create_for_stream(EncodedBytes.append, sink, Double(width), Double(height))
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            let reason = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
            cairo_surface_destroy(surface)
            throw .cannotWrite(path: path, reason: reason)
        }
        context = cairo_create(surface)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// Fills a rectangle.
    public func fill(x: Double, y: Double, width: Double, height: Double, color: Color) {
        set(color)
        cairo_rectangle(context, x, y, width, height)
        cairo_fill(context)
    }

    /// Draws a straight line `lineWidth` wide.
    public func line(from start: (x: Double, y: Double), to end: (x: Double, y: Double), color: Color, lineWidth: Double = 1, dashed: Bool = false) {
        set(color)
        cairo_set_line_width(context, lineWidth)
        if dashed {
            let pattern: [Double] = [4, 3]
            cairo_set_dash(context, pattern, 2, 0)
        }
        cairo_move_to(context, start.x, start.y)
        cairo_line_to(context, end.x, end.y)
        cairo_stroke(context)
        cairo_set_dash(context, nil, 0, 0)
    }

    /// Writes `text` with its baseline's left end at (x, y), in a sans-serif face `size` high.
    public func text(_ text: String, x: Double, y: Double, size: Double, color: Color, bold: Bool = false) {
        set(color)
        cairo_select_font_face(context, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, size)
        cairo_move_to(context, x, y)
        cairo_show_text(context, text)
    }

    /// How wide `text` is when written `size` high.
    public func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        cairo_select_font_face(context, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, size)
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        return extents.x_advance
    }

    /// Limits drawing to a rectangle until `unclip()`.
    public func clip(x: Double, y: Double, width: Double, height: Double) {
        cairo_save(context)
        cairo_rectangle(context, x, y, width, height)
        cairo_clip(context)
    }

    public func unclip() {
        cairo_restore(context)
    }

    /// Completes the picture and writes the file.
    public func finish() throws(DrawingError) {
        guard !finished else { return }
        finished = true
        cairo_surface_flush(surface)
        if format == .png {
            let status = cairo_surface_write_to_png_stream(surface, EncodedBytes.append, Unmanaged.passUnretained(encoded).toOpaque())
            guard status == CAIRO_STATUS_SUCCESS else { throw .cannotWrite(path: path, reason: String(cString: cairo_status_to_string(status))) }
        }
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw .cannotWrite(path: path, reason: String(cString: cairo_status_to_string(status))) }
        do {
            try OutputFile.write(encoded.bytes, to: target, named: path)
        } catch {
            throw .output(error)
        }
    }

    private func set(_ color: Color) {
        cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
    }
}

/// The bytes cairo encodes, collected in memory through its stream callback.
private final class EncodedBytes {
    var bytes: [UInt8] = []

    /// cairo's `cairo_write_func_t`; `closure` is the unretained `EncodedBytes`.
    static let append: cairo_write_func_t = { closure, data, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<EncodedBytes>.fromOpaque(closure).takeUnretainedValue()
        if let data { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length))) }
        return CAIRO_STATUS_SUCCESS
    }
}

/// An RGBA colour, each component 0...1.
public struct Color: Sendable, Equatable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// `0xRRGGBB`.
    public init(hex: UInt32, alpha: Double = 1) {
        self.init(red: Double(hex >> 16 & 0xFF) / 255, green: Double(hex >> 8 & 0xFF) / 255, blue: Double(hex & 0xFF) / 255, alpha: alpha)
    }

    public func with(alpha: Double) -> Color { Color(red: red, green: green, blue: blue, alpha: alpha) }
}

/// Why a picture could not be made.
public enum DrawingError: Error, Equatable, CustomStringConvertible, Sendable {
    case badSize(width: Int, height: Int)
    case cannotWrite(path: String, reason: String)
    case cannotRead(path: String, reason: String)
    /// The picture's file was refused or could not be written.
    case output(OutputFileError)

    public var description: String {
        switch self {
        case .badSize(let width, let height): return "a picture of \(width)×\(height) cannot be drawn (1 to 20000 each way)"
        case .cannotWrite(let path, let reason): return "\(path) cannot be written: \(reason)"
        case .cannotRead(let path, let reason): return "\(path) cannot be read as a PNG: \(reason)"
        case .output(let error): return error.description
        }
    }
}
