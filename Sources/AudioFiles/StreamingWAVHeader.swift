import Foundation

/// The 44-byte header of a WAV stream whose length is not known when it starts: RIFF and `data`
/// sizes are 0xFFFFFFFF, the convention streaming writers use so readers read to end of file.
enum StreamingWAVHeader {
    static func bytes(format: AudioSampleFormat, sampleRate: Int, channelCount: Int) -> [UInt8] {
        let bytesPerSample = format.bitDepth / 8
        let formatTag: UInt16 = format == .float32 ? 3 : 1  // IEEE float : integer PCM
        var header: [UInt8] = []
        func append(_ text: String) { header += Array(text.utf8) }
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        append("RIFF"); append(UInt32.max); append("WAVE")
        append("fmt "); append(UInt32(16))
        append(formatTag); append(UInt16(channelCount)); append(UInt32(sampleRate))
        append(UInt32(sampleRate * channelCount * bytesPerSample))
        append(UInt16(channelCount * bytesPerSample)); append(UInt16(format.bitDepth))
        append("data"); append(UInt32.max)
        return header
    }

    static func write(to descriptor: Int32, format: AudioSampleFormat, sampleRate: Int, channelCount: Int,
                      path: String) throws(AudioFileError) {
        let header = bytes(format: format, sampleRate: sampleRate, channelCount: channelCount)
        let written = header.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == header.count else {
            throw AudioFileError(path: path, problem: .writeFailed(String(cString: strerror(errno))))
        }
    }
}
