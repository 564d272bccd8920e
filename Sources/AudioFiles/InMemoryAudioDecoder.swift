import CSndFile

/// Decodes audio held in memory through libsndfile (any format it reads, Ogg Vorbis included): what an
/// SF3 SoundFont's compressed samples need at load. The C side stays in this file.
public enum InMemoryAudioDecoder {
    /// The first channel of the audio in `bytes` as 16-bit points (as libfluidsynth decodes an SF3 sample:
    /// through `sf_readf_short`, so both engines play the same points); nil when libsndfile cannot read it.
    public static func decode16BitMono(_ bytes: UnsafeRawBufferPointer) -> [Int16]? {
        var stream = MemoryStream(bytes: bytes)
        return withUnsafeMutablePointer(to: &stream) { streamPointer -> [Int16]? in
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
            let channels = Int(info.channels)
            guard channels > 0, info.frames >= 0 else { return nil }
            var output: [Int16] = []
            output.reserveCapacity(Int(info.frames))
            let blockFrames = 4096
            var block = [Int16](repeating: 0, count: blockFrames * channels)
            while true {
                let read = block.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, sf_count_t(blockFrames)) }
                guard read > 0 else { break }
                for frame in 0..<Int(read) { output.append(block[frame * channels]) }
            }
            return sf_error(file) == 0 ? output : nil
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
