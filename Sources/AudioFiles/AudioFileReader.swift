import CSndFile

/// Reads an audio file of any format libsndfile knows into float samples in [-1, 1].
public final class AudioFileReader {
    public let path: String
    /// The container, when it is one `AudioFileWriter` also writes.
    public let format: AudioFileFormat?
    public let sampleRate: Int
    public let channelCount: Int
    /// The number of frames in the file.
    public let frameCount: Int64

    private let file: OpaquePointer

    public init(path: String) throws(AudioFileError) {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, problem: .cannotOpen(String(cString: sf_strerror(nil))))
        }
        self.path = path
        self.file = file
        self.format = AudioFileFormat(sndfileFormat: info.format)
        self.sampleRate = Int(info.samplerate)
        self.channelCount = Int(info.channels)
        self.frameCount = Int64(info.frames)
    }

    deinit {
        sf_close(file)
    }

    /// Reads up to `maxFrames` interleaved frames into `buffer` (room for `maxFrames × channelCount`
    /// samples) and returns how many were read; 0 at the end of the file. Does not allocate.
    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioFileError) -> Int {
        let read = sf_readf_float(file, buffer, sf_count_t(maxFrames))
        if read < maxFrames, sf_error(file) != 0 {
            throw AudioFileError(path: path, problem: .readFailed(String(cString: sf_strerror(file))))
        }
        return Int(read)
    }

    /// Reads up to `maxFrames` frames, one array per channel; the arrays are empty at the end.
    public func read(maxFrames: Int) throws(AudioFileError) -> [[Float]] {
        var interleaved = [Float](repeating: 0, count: maxFrames * channelCount)
        let frames = try interleaved.withUnsafeMutableBufferPointer { (buffer) throws(AudioFileError) -> Int in
            try read(into: buffer.baseAddress!, maxFrames: maxFrames)
        }
        return (0..<channelCount).map { channel in
            (0..<frames).map { interleaved[$0 * channelCount + channel] }
        }
    }

    /// Reads from the current position to the end, one array per channel.
    public func readAll() throws(AudioFileError) -> [[Float]] {
        var channels = [[Float]](repeating: [], count: channelCount)
        while true {
            let block = try read(maxFrames: 65_536)
            guard let first = block.first, !first.isEmpty else { return channels }
            for channel in 0..<channelCount { channels[channel] += block[channel] }
        }
    }

    /// Moves the read position to `frame` (0 is the start).
    public func seek(toFrame frame: Int64) throws(AudioFileError) {
        guard sf_seek(file, sf_count_t(frame), SEEK_SET) >= 0 else {
            throw AudioFileError(path: path, problem: .readFailed(String(cString: sf_strerror(file))))
        }
    }
}
