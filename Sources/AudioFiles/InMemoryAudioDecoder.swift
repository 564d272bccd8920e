import CSndFile

/// Decodes audio held in memory through libsndfile (any format it reads, Ogg Vorbis included): what an
/// SF3 SoundFont's compressed samples need at load. The C side stays in this file.
public enum InMemoryAudioDecoder {
    /// The number of frames of the audio in `bytes`, as libsndfile reads its header; nil when it cannot read it.
    public static func frameCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        opened(bytes) { _, info in Int(info.frames) }
    }

    /// Decodes the first channel of the audio in `bytes` into `points` as 16-bit values (as many frames as fit)
    /// and returns how many it wrote; nil when libsndfile cannot read it. This is how libfluidsynth decodes an
    /// SF3 sample (through `sf_readf_short`), so both engines play the same points.
    public static func decode16BitMono(_ bytes: UnsafeRawBufferPointer, into points: UnsafeMutableBufferPointer<Int16>) -> Int? {
        opened(bytes) { file, info -> Int? in
            let channels = Int(info.channels)
            let blockFrames = 4096
            var block = [Int16](repeating: 0, count: blockFrames * channels)
            var written = 0
            while written < points.count {
                let wanted = min(blockFrames, points.count - written)
                let read = block.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, sf_count_t(wanted)) }
                guard read > 0 else { break }
                for frame in 0..<Int(read) { points[written + frame] = block[frame * channels] }
                written += Int(read)
            }
            return sf_error(file) == 0 ? written : nil
        } ?? nil
    }

    /// `body` with the audio in `bytes` opened by libsndfile (at least one channel, a known length); nil when
    /// libsndfile cannot open it.
    private static func opened<Result>(_ bytes: UnsafeRawBufferPointer, _ body: (OpaquePointer, SF_INFO) -> Result) -> Result? {
        var stream = MemoryStream(bytes: bytes)
        return withUnsafeMutablePointer(to: &stream) { streamPointer -> Result? in
            var io = SF_VIRTUAL_IO(
                get_filelen: { user in sf_count_t(MemoryStream.at(user).pointee.bytes.count) },
                seek: { offset, whence, user in
                    let stream = MemoryStream.at(user)
                    let base: Int
                    switch whence {
                    case SEEK_CUR: base = stream.pointee.position
                    case SEEK_END: base = stream.pointee.bytes.count
                    default: base = 0
                    }
                    stream.pointee.position = min(max(base + Int(offset), 0), stream.pointee.bytes.count)
                    return sf_count_t(stream.pointee.position)
                },
                read: { destination, count, user in
                    let stream = MemoryStream.at(user)
                    let n = min(Int(count), stream.pointee.bytes.count - stream.pointee.position)
                    guard n > 0, let destination, let source = stream.pointee.bytes.baseAddress else { return 0 }
                    destination.copyMemory(from: source + stream.pointee.position, byteCount: n)
                    stream.pointee.position += n
                    return sf_count_t(n)
                },
                write: { _, _, _ in 0 },
                tell: { user in sf_count_t(MemoryStream.at(user).pointee.position) })
            var info = SF_INFO()
            guard let file = sf_open_virtual(&io, Int32(SFM_READ), &info, streamPointer) else { return nil }
            defer { sf_close(file) }
            guard info.channels > 0, info.frames >= 0, info.frames < Int64(Int32.max) else { return nil }
            return body(file, info)
        }
    }
}

/// The read position in bytes held in memory, for libsndfile's virtual I/O.
private struct MemoryStream {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    /// The stream a libsndfile callback's user data points to.
    static func at(_ user: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<MemoryStream> {
        user!.assumingMemoryBound(to: MemoryStream.self)
    }
}
