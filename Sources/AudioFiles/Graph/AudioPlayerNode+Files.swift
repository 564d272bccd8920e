import AudioGraph

extension AudioPlayerNode {
    /// Decodes the whole of `reader`'s file into memory, here on the calling thread, and schedules it
    /// like `scheduleBuffer(_:at:loops:)`. Throws `AudioPlayerError` (naming the file) when the
    /// player cannot play it, or `AudioFileError` when it cannot be read.
    public func scheduleFile(_ reader: AudioFileReader, at sampleTime: Int64? = nil, loops: Int = 0) throws {
        try checkSource(named: reader.path, sampleRate: Double(reader.sampleRate), channelCount: reader.channelCount)
        let buffer = try AudioBuffer.decoding(reader)
        guard buffer.frameLength > 0 else { throw AudioPlayerError.empty(source: reader.path) }
        try scheduleBuffer(buffer, at: sampleTime, loops: loops)
    }

    /// Opens the audio file at `path` and schedules it (see `scheduleFile(_:at:loops:)`).
    public func scheduleFile(atPath path: String, at sampleTime: Int64? = nil, loops: Int = 0) throws {
        try scheduleFile(AudioFileReader(path: path), at: sampleTime, loops: loops)
    }
}

extension AudioBuffer {
    /// A buffer holding all of `reader`'s file, from its start, at the file's rate and channel count.
    public static func decoding(_ reader: AudioFileReader) throws(AudioFileError) -> AudioBuffer {
        try reader.seek(toFrame: 0)
        let channels = try reader.readAll()
        let frames = channels[0].count
        let buffer = AudioBuffer(format: AudioFormat(sampleRate: Double(reader.sampleRate), channelCount: reader.channelCount),
                                 frameCapacity: frames)
        buffer.frameLength = frames
        for channel in channels.indices {
            _ = buffer[channel].update(fromContentsOf: channels[channel])
        }
        return buffer
    }
}
