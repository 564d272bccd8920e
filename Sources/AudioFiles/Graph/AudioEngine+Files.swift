import AudioGraph

extension AudioFileWriter {
    /// Opens a writer for audio in `format` (its sample rate and channel count), e.g. an engine's
    /// `outputFormat`. `fileFormat` defaults to the one `path`'s extension names.
    public convenience init(path: String, format: AudioFormat, fileFormat: AudioFileFormat? = nil,
                            sampleFormat: AudioSampleFormat? = nil) throws(AudioFileError) {
        try self.init(path: path, format: fileFormat, sampleFormat: sampleFormat,
                      sampleRate: Int(format.sampleRate.rounded()), channelCount: format.channelCount)
    }

    /// Appends the `frameLength` frames of `buffer`, whose channel count must be the file's.
    public func write(_ buffer: AudioBuffer) throws(AudioFileError) {
        precondition(buffer.channelCount == channelCount, "the buffer has \(buffer.channelCount) channels, the file \(channelCount)")
        var done = 0
        while done < buffer.frameLength {
            let count = min(4096, buffer.frameLength - done)
            if channelCount <= 2 {
                try write(left: buffer[0].baseAddress! + done, right: channelCount == 2 ? buffer[1].baseAddress! + done : nil,
                          frameCount: count)
            } else {
                var interleaved = [Float](repeating: 0, count: count * channelCount)
                for channel in 0..<channelCount {
                    for frame in 0..<count { interleaved[frame * channelCount + channel] = buffer[channel][done + frame] }
                }
                try write(interleaved: interleaved, frameCount: count)
            }
            done += count
        }
    }
}

extension AudioEngine {
    /// Renders the running engine (manual rendering mode) into `file`, as an offline
    /// `AVAudioEngine` loop would: `frameCount` frames, then on while the output sounds, until a block
    /// after them falls silent (`AudioBuffer.silenceThreshold`) or `untilSilent` more seconds have
    /// passed (0: stop at `frameCount`), as a song's render does (`RenderLength`, through the loop of
    /// every render to a file, `BlockFileWriter.append(blocks:…)`). Finishes the file, or cancels it
    /// (no partial file) when anything fails. Returns the frames written.
    @discardableResult
    public func render(to file: AudioFileWriter, frameCount: Int64, untilSilent maximumTail: Double = 3) throws -> Int64 {
        guard file.sampleRate == Int(outputFormat.sampleRate.rounded()), file.channelCount == outputFormat.channelCount else {
            file.cancel()
            throw AudioEngineError.bufferFormatMismatch(
                buffer: AudioFormat(sampleRate: Double(file.sampleRate), channelCount: file.channelCount), expected: outputFormat)
        }
        guard isInManualRenderingMode, isRunning else {
            file.cancel()
            throw isInManualRenderingMode ? AudioEngineError.engineNotRunning : AudioEngineError.notInManualRenderingMode
        }
        var length = RenderLength(contentFrames: frameCount, tailFrames: Int64((maximumTail * outputFormat.sampleRate).rounded()),
                                  stopsAtSilence: true)
        let output = BlockFileWriter(file: file)
        let written = try output.append(blocks: {
            length.renderNextBlock(atMost: maximumFrameCount) { renderBlock(frameCount: $0) }
        }) ?? 0
        do {
            try output.finish()
        } catch {
            file.cancel()
            throw error
        }
        return written
    }
}
