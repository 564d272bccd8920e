/// The bank's sample points as the voice loop reads them: stored as the font holds them (16-bit integers,
/// plus a low byte each for a 24-bit font) and converted to `Float` in [-1, 1) point by point as they are
/// interpolated. The conversion is a multiplication by a power of two, so a point's value is exactly what
/// converting the whole font to floats at load would give, at half (or five eighths) the memory.
/// Read through plain pointers: no bounds checks and no allocation in the voice loop.
protocol SamplePoints {
    /// The point at `index`, in [-1, 1).
    subscript(_ index: Int) -> Float { get }
}

/// The points of a 16-bit font.
struct SamplePoints16: SamplePoints {
    let high: UnsafePointer<Int16>
    @inline(__always) subscript(_ index: Int) -> Float { Float(high[index]) * (1 / 32768) }
}

/// The points of a 24-bit font (`sm24`): the 16 high bits and the low byte.
struct SamplePoints24: SamplePoints {
    let high: UnsafePointer<Int16>
    let low: UnsafePointer<UInt8>
    @inline(__always) subscript(_ index: Int) -> Float {
        Float(Int32(high[index]) << 8 | Int32(low[index])) * (1 / 8_388_608)
    }
}
