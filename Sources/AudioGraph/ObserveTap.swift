import Atomics

/// A read-only tap that hands copies of the audio at its point to an ordinary thread (a meter, a
/// scope, a file writer) through a lock-free single-producer single-consumer ring buffer.
///
/// The render thread never waits: a render cycle whose frames do not fit in the free part of the
/// ring is dropped whole and counted in `droppedFrames`. When the consumer keeps up, it receives
/// every frame, in order. One consumer thread calls `read(into:)`; don't read while the engine is
/// preparing (the ring is made at prepare, for the tapped format).
// Why unchecked: one producer (the render thread) and one consumer meet in a lock-free ring made at prepare, with the engine stopped.
public final class ObserveTap: ProcessingTap, @unchecked Sendable {
    /// Frames the ring holds; at least the engine's maximum frame count.
    public let capacity: Int
    /// The format of the tapped audio, known from the engine's prepare on.
    public private(set) var format: AudioFormat?

    private var ring: UnsafeMutablePointer<Float>?
    private let framesWritten = ManagedAtomic<Int>(0)
    private let framesRead = ManagedAtomic<Int>(0)
    private let framesDropped = ManagedAtomic<Int>(0)

    /// A tap whose ring holds `capacity` frames.
    public init(capacity: Int) {
        precondition(capacity > 0, "an observe tap needs a positive capacity")
        self.capacity = capacity
    }

    deinit { ring?.deallocate() }

    /// Frames the render thread could not deliver because the ring was full.
    public var droppedFrames: Int { framesDropped.load(ordering: .relaxed) }

    /// Frames delivered into the ring so far (read or waiting to be read).
    public var deliveredFrames: Int { framesWritten.load(ordering: .acquiring) }

    /// Frames waiting to be read.
    public var availableFrames: Int {
        framesWritten.load(ordering: .acquiring) - framesRead.load(ordering: .relaxed)
    }

    public func prepare(format: AudioFormat, maximumFrameCount: Int) throws {
        guard capacity >= maximumFrameCount else {
            throw CapacityTooSmall(capacity: capacity, maximumFrameCount: maximumFrameCount)
        }
        guard format != self.format else { return }
        ring?.deallocate()
        let count = capacity * format.channelCount
        ring = .allocate(capacity: count)
        ring!.initialize(repeating: 0, count: count)
        self.format = format
        framesWritten.store(0, ordering: .relaxed)
        framesRead.store(0, ordering: .relaxed)
    }

    public func process(_ buffer: AudioBuffer, context: RenderContext) {
        guard let ring else { return }
        let frames = buffer.frameLength
        let written = framesWritten.load(ordering: .relaxed)
        let free = capacity - (written - framesRead.load(ordering: .acquiring))
        guard frames <= free else {
            framesDropped.wrappingIncrement(by: frames, ordering: .relaxed)
            return
        }
        for channel in 0..<buffer.channelCount {
            Self.copy(frames, from: buffer[channel].baseAddress!, toRing: ring + channel * capacity,
                      capacity: capacity, at: written % capacity)
        }
        framesWritten.store(written + frames, ordering: .releasing)
    }

    /// Moves up to `buffer.frameCapacity` waiting frames into `buffer` (which must have the tapped
    /// channel count), sets its `frameLength` and returns the frames moved. Never blocks.
    @discardableResult
    public func read(into buffer: AudioBuffer) -> Int {
        guard let ring, let format else { buffer.frameLength = 0; return 0 }
        precondition(buffer.channelCount == format.channelCount, "the buffer must have the tapped channel count")
        let read = framesRead.load(ordering: .relaxed)
        let frames = min(framesWritten.load(ordering: .acquiring) - read, buffer.frameCapacity)
        buffer.frameLength = frames
        for channel in 0..<format.channelCount {
            let start = read % capacity
            let first = min(frames, capacity - start)
            let destination = buffer[channel].baseAddress!
            destination.update(from: ring + channel * capacity + start, count: first)
            (destination + first).update(from: ring + channel * capacity, count: frames - first)
        }
        framesRead.store(read + frames, ordering: .releasing)
        return frames
    }

    private static func copy(_ frames: Int, from source: UnsafeMutablePointer<Float>,
                             toRing ring: UnsafeMutablePointer<Float>, capacity: Int, at start: Int) {
        let first = min(frames, capacity - start)
        (ring + start).update(from: source, count: first)
        ring.update(from: source + first, count: frames - first)
    }

    /// `prepare` refused: the ring cannot hold one render cycle.
    public struct CapacityTooSmall: Error, CustomStringConvertible {
        public let capacity: Int
        public let maximumFrameCount: Int
        public var description: String {
            "the observe tap holds \(capacity) frames, less than one render cycle (\(maximumFrameCount))"
        }
    }
}
