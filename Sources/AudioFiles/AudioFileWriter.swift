import CSndFile
import Foundation
import SeqplaySupport

/// Writes audio to a WAV, AIFF, FLAC, Ogg Vorbis, MP3 or Opus file through libsndfile, or WAV to standard
/// output when the path is `-`. `OutputTarget` decides where the bytes go and what is refused.
///
/// A file is written under a temporary name in the destination's directory and renamed over the
/// destination only by `finish()`; `cancel()`, a failure, or dropping the writer unfinished remove
/// the temporary file, so a half-written file never appears under the destination's name. Devices
/// and FIFOs are written through.
///
/// WAV to a file is a plain RIFF WAV when `expectedFrameCount` says its data fits in 4 GiB, which every
/// reader takes. Otherwise (longer, or of unknown length: a recording) it is RF64 while it is written
/// and becomes a WAV at `finish()` when its data stayed under 4 GiB (libsndfile's auto-downgrade, which
/// keeps RF64's extensible format header), so long files get correct lengths.
///
/// Standard output redirected to a file gets an ordinary WAV file. On a pipe, libsndfile 1.2
/// refuses WAV ("this file format does not support pipe write"), so the writer sends its own WAV
/// header with the RIFF and `data` sizes set to 0xFFFFFFFF (unknown length, as ffmpeg and sox do
/// when streaming) followed by raw little-endian samples; readers take the data as running to EOF.
///
/// Float samples are clipped to [-1, 1] when stored as integers.
public final class AudioFileWriter {
    /// The destination path, `-` for standard output.
    public let path: String
    public let format: AudioFileFormat
    /// The stored sample format (`nil` for the lossy formats: Ogg Vorbis, MP3, Opus).
    public let sampleFormat: AudioSampleFormat?
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames written so far.
    public private(set) var framesWritten: Int64 = 0

    /// The libsndfile handle, nil once finished or cancelled (`AudioEncoding` sets its options on it).
    var file: OpaquePointer?
    private let descriptor: Int32
    /// The temporary file being written and the real path it replaces, `nil` when writing a stream.
    private let temporaryPath: String?
    private let destinationPath: String
    /// Whether `descriptor` was opened here (a device or FIFO, a temporary file) and is closed here.
    private let ownsDescriptor: Bool
    /// Interleaving space for `write(left:right:frameCount:)`, allocated once; nil for a mono file.
    private let interleaver: StereoInterleaver?

    /// Whether `frames` of audio make a data chunk a RIFF WAV can describe (its sizes are 32-bit, less
    /// room for the header); false when the length is not known.
    static func fitsInRIFF(frames: Int64?, sampleFormat: AudioSampleFormat, channelCount: Int) -> Bool {
        guard let frames, frames >= 0 else { return false }
        let (bytes, overflow) = frames.multipliedReportingOverflow(by: Int64(channelCount * sampleFormat.bitDepth / 8))
        return !overflow && bytes < Int64(UInt32.max) - 1_048_576
    }

    /// Opens a writer. `format` defaults to the one `path`'s extension names (WAV for a stream: `-`,
    /// a device, a FIFO), and `sampleFormat`
    /// to the container's default (16-bit integer; Vorbis for Ogg). `inputs` are the files the audio
    /// is made from, which the output may not be (see `OutputTarget`); `expectedFrameCount`, the most
    /// frames the file will hold when known, lets a WAV that fits be a plain RIFF WAV.
    public init(
        path: String,
        format: AudioFileFormat? = nil,
        sampleFormat: AudioSampleFormat? = nil,
        sampleRate: Int,
        channelCount: Int,
        maximumFramesPerWrite: Int = 4096,
        expectedFrameCount: Int64? = nil,
        protecting inputs: [String] = []
    ) throws(AudioFileError) {
        func fail(_ problem: AudioFileError.Problem) -> AudioFileError { AudioFileError(path: path, problem: problem) }
        let toStandardOutput = path == "-"
        let target: OutputTarget
        do {
            target = try OutputTarget.resolve(path, protecting: inputs)
        } catch {
            throw AudioFileError(error)
        }
        let pathExtension = (path as NSString).pathExtension
        var isStream = toStandardOutput
        if case .stream = target { isStream = true }
        // A stream with no format named (`-`, /dev/null, a FIFO) is WAV.
        guard let format = format ?? AudioFileFormat(pathExtension: pathExtension) ?? (isStream ? .wav : nil) else {
            throw fail(.unknownExtension(pathExtension))
        }
        if toStandardOutput, format != .wav { throw fail(.streamMustBeWAV(format)) }
        let sampleFormat = sampleFormat ?? format.defaultSampleFormat
        guard format.isLossy ? sampleFormat == nil : format.supportedSampleFormats.contains(sampleFormat!) else {
            throw fail(.unsupportedSampleFormat(format, sampleFormat))
        }
        var info = SF_INFO()
        info.samplerate = Int32(clamping: sampleRate)
        info.channels = Int32(clamping: channelCount)
        info.format = format.sndfileMajor | (sampleFormat?.sndfileSubtype ?? format.lossySubtype)
        guard sampleRate > 0, channelCount > 0, sf_format_check(&info) != 0 else {
            throw fail(.unsupportedSettings("\(format.rawValue) at \(sampleRate) Hz with \(channelCount) channels"))
        }

        let descriptor: Int32
        var ownsDescriptor = true
        var temporaryPath: String? = nil
        var destinationPath = path
        switch target {
        case .standardOutput:
            descriptor = StandardOutput.descriptor
            ownsDescriptor = false
        case .stream(let device):
            descriptor = open(device, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw fail(.cannotCreate(String(cString: strerror(errno)))) }
        case .file(let real, let mode):
            do {
                (descriptor, temporaryPath) = try OutputFile.createTemporaryFile(beside: real, mode: mode, for: path)
            } catch {
                throw AudioFileError(error)
            }
            destinationPath = real
        }
        func closeAndRemove() {
            if ownsDescriptor { close(descriptor) }
            if let temporaryPath { unlink(temporaryPath) }
        }
        if lseek(descriptor, 0, SEEK_CUR) < 0 {
            // A pipe: libsndfile refuses WAV there, so write a streaming header, then raw samples.
            guard format == .wav else {
                closeAndRemove()
                throw fail(.streamMustBeWAV(format))
            }
            do {
                try StreamingWAVHeader.write(to: descriptor, format: sampleFormat!, sampleRate: sampleRate,
                                             channelCount: channelCount, path: path)
            } catch {
                closeAndRemove()
                throw error
            }
            info.format = Int32(SF_FORMAT_RAW | SF_ENDIAN_LITTLE) | sampleFormat!.sndfileSubtype
        } else if format == .wav && !Self.fitsInRIFF(frames: expectedFrameCount, sampleFormat: sampleFormat!, channelCount: channelCount) {
            info.format = Int32(SF_FORMAT_RF64) | sampleFormat!.sndfileSubtype
        }
        // libsndfile gets its own descriptor: it closes the one it is given even when opening fails.
        guard let file = sf_open_fd(dup(descriptor), Int32(SFM_WRITE), &info, 1) else {
            let reason = String(cString: sf_strerror(nil))
            let isSystemError = sf_error(nil) == Int32(SF_ERR_SYSTEM)  // the header write failed: disk full, /dev/full
            closeAndRemove()
            throw fail(isSystemError ? .writeFailed(reason) : .unsupportedSettings(reason))
        }
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        sf_command(file, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
        // No PEAK chunk in float files: it holds the time of writing, so the same render would
        // differ byte for byte from one run to the next. (libsndfile 1.2 ignores this for RF64, which
        // only WAVs too long for RIFF are written as: their PEAK chunk still carries the time.)
        sf_command(file, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))

        self.path = path
        self.format = format
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.file = file
        self.descriptor = descriptor
        self.temporaryPath = temporaryPath
        self.destinationPath = destinationPath
        self.ownsDescriptor = ownsDescriptor
        self.interleaver = channelCount == 2 ? StereoInterleaver(chunkFrames: maximumFramesPerWrite) : nil
    }

    deinit {
        cancel()
    }

    /// Appends `frameCount` frames from non-interleaved channel buffers: `left` alone for a mono
    /// file, `left` and `right` for stereo. Does not allocate.
    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>?, frameCount: Int) throws(AudioFileError) {
        let given = right == nil ? 1 : 2
        guard given == channelCount else {
            throw AudioFileError(path: path, problem: .channelCountMismatch(expected: channelCount, given: given))
        }
        guard let right, let interleaver else { return try write(interleaved: left, frameCount: frameCount) }
        try interleaver.interleave(left: left, right: right, frameCount: frameCount) { (samples, frames) throws(AudioFileError) in
            try write(interleaved: samples, frameCount: frames)
        }
    }

    /// Appends `frameCount` frames of interleaved samples (`channelCount` per frame).
    public func write(interleaved samples: UnsafePointer<Float>, frameCount: Int) throws(AudioFileError) {
        guard let file else { throw AudioFileError(path: path, problem: .closed) }
        let written = sf_writef_float(file, samples, sf_count_t(frameCount))
        framesWritten += Int64(written)
        guard written == frameCount else {
            throw AudioFileError(path: path, problem: .writeFailed(String(cString: sf_strerror(file))))
        }
    }

    /// Completes the file (headers, encoder flush) and moves it to its destination.
    public func finish() throws(AudioFileError) {
        guard let file else { throw AudioFileError(path: path, problem: .closed) }
        self.file = nil
        let closeStatus = sf_close(file)
        var reason = closeStatus == 0 ? nil : String(cString: sf_error_number(closeStatus))
        if let temporaryPath {
            if reason == nil {
                do {
                    try OutputFile.commit(descriptor, temporary: temporaryPath, to: destinationPath, named: path)
                } catch {
                    if case .writeFailed(let why) = error.problem { reason = why } else { reason = error.problem.explanation }
                }
            }
            if reason != nil { unlink(temporaryPath) }
        }
        if ownsDescriptor { close(descriptor) }
        if let reason { throw AudioFileError(path: path, problem: .writeFailed(reason)) }
    }

    /// Abandons the file: the temporary file is removed and the destination is left untouched.
    /// Does nothing if the writer is already finished or cancelled.
    public func cancel() {
        guard let file else { return }
        self.file = nil
        sf_close(file)
        if ownsDescriptor { close(descriptor) }
        if let temporaryPath { unlink(temporaryPath) }
    }
}
