import CCairo

/// A PNG file's pixels, read with cairo: what a picture looks like, for checking it.
public struct PNGImage: Sendable {
    public let width: Int
    public let height: Int
    /// Premultiplied ARGB32 pixels, row by row.
    private let pixels: [UInt32]

    public init(path: String) throws(DrawingError) {
        let surface = cairo_image_surface_create_from_png(path)!
        defer { cairo_surface_destroy(surface) }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw .cannotRead(path: path, reason: String(cString: cairo_status_to_string(status))) }
        cairo_surface_flush(surface)
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        let columns = width
        var values: [UInt32] = []
        values.reserveCapacity(width * height)
        for row in 0..<height {
            data.advanced(by: row * stride).withMemoryRebound(to: UInt32.self, capacity: columns) { line in
                values.append(contentsOf: UnsafeBufferPointer(start: line, count: columns))
            }
        }
        pixels = values
    }

    /// The colour at (x, y), un-premultiplied, components 0...255.
    public func pixel(x: Int, y: Int) -> (red: Int, green: Int, blue: Int, alpha: Int) {
        let value = pixels[y * width + x]
        let alpha = Int(value >> 24)
        func channel(_ shift: UInt32) -> Int {
            let premultiplied = Int(value >> shift & 0xFF)
            return alpha == 0 ? 0 : min(255, (premultiplied * 255 + alpha / 2) / alpha)
        }
        return (channel(16), channel(8), channel(0), alpha)
    }
}
