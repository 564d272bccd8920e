import Atomics
import AudioGraph
import Foundation
import SeqplaySupport
import Synchronization

/// Records the audio at a tap point to a file while the engine plays: an `ObserveTap` hands the
/// frames to a writer thread, which writes them through `AudioFileWriter` (WAV, AIFF, FLAC, Ogg).
///
/// Install it like any tap, start the engine (so the tapped format is known), then `start()`;
/// `stop()` writes what is still waiting, completes the file and says how many frames were written
/// and dropped. The render thread never waits for the disk: when the writer falls more than
/// `bufferFrames` behind, whole render cycles are dropped and counted, never delayed. When the
/// writer keeps up, the file holds every frame rendered between `start()` and `stop()`.
public final class RecorderTap: ProcessingTap, Sendable {
    /// What a finished recording holds.
    public struct Summary: Equatable, Sendable {
        /// Frames in the file.
        public let framesWritten: Int64
        /// Frames rendered while recording that did not reach the file (the writer was behind).
        public let droppedFrames: Int
    }

    /// The file written (`-` for standard output).
    public let path: String
    /// The container, or nil for the one `path`'s extension names.
    public let fileFormat: AudioFileFormat?
    /// The stored sample format, or nil for the container's default.
    public let sampleFormat: AudioSampleFormat?

    private let observer: ObserveTap
    /// All the render thread reads of the recorder, beside the observer's lock-free ring.
    private let recording = ManagedAtomic<Bool>(false)
    /// The recording's writer; never touched by the render thread.
    private let session = Mutex<WriterSession?>(nil)

    /// A recorder for `path` buffering up to `bufferFrames` frames between the render thread and
    /// the writer thread (default 2^16, about 1.5 s at 44.1 kHz).
    public init(path: String, fileFormat: AudioFileFormat? = nil, sampleFormat: AudioSampleFormat? = nil,
                bufferFrames: Int = 1 << 16) {
        self.path = path
        self.fileFormat = fileFormat
        self.sampleFormat = sampleFormat
        observer = ObserveTap(capacity: bufferFrames)
    }

    /// Whether `start()` has been called without `stop()`.
    public var isRecording: Bool { session.withLock { $0 != nil } }

    /// Frames written to the file so far in this recording.
    public var framesWritten: Int64 { session.withLock { $0?.framesWritten.load(ordering: .relaxed) ?? 0 } }

    /// Frames dropped so far in this recording.
    public var droppedFrames: Int { session.withLock { current in current.map { observer.droppedFrames - $0.droppedBefore } ?? 0 } }

    /// Opens the file and starts recording from the next render cycle. The engine must have been
    /// prepared with the tap installed. Throws `RecorderError` or the file's `AudioFileError`.
    public func start() throws {
        try start(writingTo: path)
    }

    /// Starts recording, as `start()` does, to `file` instead of `path` (a recorder installed once,
    /// before the engine starts, that records to a file named later: a sound module's record button).
    public func start(writingTo file: String) throws {
        guard !isRecording else { throw RecorderError.alreadyRecording(path: file) }
        guard let format = observer.format else { throw RecorderError.notPrepared(path: file) }
        let writer = try AudioFileWriter(path: file, format: fileFormat, sampleFormat: sampleFormat,
                                         sampleRate: Int(format.sampleRate), channelCount: format.channelCount,
                                         maximumFramesPerWrite: 4096)
        let session = WriterSession(writer: writer, observer: observer, format: format)
        session.discardWaitingFrames()
        self.session.withLock { $0 = session }
        session.start()
        recording.store(true, ordering: .releasing)
    }

    /// Stops recording, writes the frames still waiting, completes the file and returns what it
    /// holds. Throws the writer's `AudioFileError` if writing failed (the file is then removed).
    @discardableResult
    public func stop() throws -> Summary {
        guard let session = session.withLock({ $0.take() }) else { throw RecorderError.notRecording(path: path) }
        recording.store(false, ordering: .releasing)
        let dropped = observer.droppedFrames - session.droppedBefore
        try session.finish()
        return Summary(framesWritten: session.framesWritten.load(ordering: .relaxed), droppedFrames: dropped)
    }

    /// Stops recording and abandons the file: its temporary file is removed and whatever was at its
    /// path is left as it was (a session that could not start keeps no recording). Does nothing when
    /// not recording.
    public func cancel() {
        guard let session = session.withLock({ $0.take() }) else { return }
        recording.store(false, ordering: .releasing)
        session.cancel()
    }

    // MARK: ProcessingTap

    public func prepare(format: AudioFormat, maximumFrameCount: Int) throws {
        if let session = session.withLock({ $0 }), session.format != format { throw RecorderError.formatChanged(path: path, from: session.format, to: format) }
        try observer.prepare(format: format, maximumFrameCount: maximumFrameCount)
    }

    public func process(_ buffer: AudioBuffer, context: RenderContext) {
        guard recording.load(ordering: .relaxed) else { return }
        observer.process(buffer, context: context)
    }

    /// The writer thread of one recording: moves frames from the ring to the file until finished.
    // Why unchecked: the writer fields are its thread's until `endThread()` has joined it; counters are atomic.
    private final class WriterSession: @unchecked Sendable {
        let format: AudioFormat
        let droppedBefore: Int
        let framesWritten = ManagedAtomic<Int64>(0)
        private let writer: AudioFileWriter
        private let observer: ObserveTap
        private let chunk: AudioBuffer
        private let interleaved: UnsafeMutablePointer<Float>
        private let writing = ServiceThread()
        private var failure: AudioFileError?

        init(writer: AudioFileWriter, observer: ObserveTap, format: AudioFormat) {
            self.writer = writer
            self.observer = observer
            self.format = format
            droppedBefore = observer.droppedFrames
            chunk = AudioBuffer(format: format, frameCapacity: 4096)
            interleaved = .allocate(capacity: 4096 * format.channelCount)
        }

        deinit { interleaved.deallocate() }

        /// Drops frames left in the ring by a cycle that was rendering when the last recording stopped.
        func discardWaitingFrames() {
            while observer.read(into: chunk) > 0 {}
        }

        func start() {
            writing.start(name: "seqplay recorder") { [self] in
                while true {
                    let finishing = writing.isStopRequested
                    let moved = writeWaitingFrames()
                    if finishing && moved == 0 { break }
                    // The ring is filled by the render thread, which signals no one: look again in 2 ms
                    // (a finish request cuts the pause short).
                    if moved == 0 { writing.waitForStop(nanoseconds: 2_000_000) }
                }
            }
        }

        /// Writes up to one chunk from the ring; returns the frames moved (0 when none or failed).
        private func writeWaitingFrames() -> Int {
            guard failure == nil else { return 0 }
            let frames = observer.read(into: chunk)
            guard frames > 0 else { return 0 }
            let channels = format.channelCount
            for channel in 0..<channels {
                let samples = chunk[channel]
                for frame in 0..<frames { interleaved[frame * channels + channel] = samples[frame] }
            }
            do {
                try writer.write(interleaved: interleaved, frameCount: frames)
                framesWritten.wrappingIncrement(by: Int64(frames), ordering: .relaxed)
            } catch {
                failure = error
                return 0
            }
            return frames
        }

        /// Drains the ring, ends the thread and completes (or, after a failure, removes) the file.
        func finish() throws {
            endThread()
            if let failure {
                writer.cancel()
                throw failure
            }
            try writer.finish()
        }

        /// Ends the thread and removes the file.
        func cancel() {
            endThread()
            writer.cancel()
        }

        private func endThread() {
            writing.stop()
        }
    }
}

/// Why a recorder could not start or stop.
public enum RecorderError: Error, Equatable, CustomStringConvertible {
    /// `start()` before the engine prepared the tap: the format to record is not known yet.
    case notPrepared(path: String)
    /// `start()` while recording.
    case alreadyRecording(path: String)
    /// `stop()` while not recording.
    case notRecording(path: String)
    /// The engine was prepared with another format in the middle of a recording.
    case formatChanged(path: String, from: AudioFormat, to: AudioFormat)

    public var description: String {
        switch self {
        case .notPrepared(let path):
            "recording to \(path): install the tap and start the engine before starting the recorder"
        case .alreadyRecording(let path): "already recording to \(path)"
        case .notRecording(let path): "not recording to \(path)"
        case .formatChanged(let path, let from, let to):
            "recording to \(path): the tapped audio changed from \(from) to \(to); stop the recording first"
        }
    }
}
