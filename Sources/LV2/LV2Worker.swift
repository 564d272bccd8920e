import Atomics
internal import CLilv
import SeqplaySupport
import Foundation

/// Where an LV2 plugin's scheduled work (the worker extension) runs.
public enum LV2WorkerMode: Sendable, Equatable {
    /// At once, on the thread that schedules it (the render thread), its responses delivered right after the
    /// plugin's run: offline renders repeat exactly (as a host does while freewheeling or exporting).
    case synchronous
    /// On a non-real-time thread of the instance's own; the responses are delivered after the first run that
    /// follows their arrival. For real-time playback (`SongPlayback` uses it).
    case thread
}

/// A single-producer, single-consumer queue of byte messages, each at most `capacity` / 2 bytes: no lock, no
/// allocation after init.
final class ByteRing {
    private let capacity: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    private let writePosition = ManagedAtomic(0)
    private let readPosition = ManagedAtomic(0)

    /// `capacity` must be a power of two.
    init(capacity: Int) {
        self.capacity = capacity
        bytes = .allocate(capacity: capacity)
    }

    deinit { bytes.deallocate() }

    private func copyIn(_ source: UnsafeRawPointer, count: Int, at position: Int) {
        let source = source.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count { bytes[(position + i) & (capacity - 1)] = source[i] }
    }

    private func copyOut(_ destination: UnsafeMutableRawPointer, count: Int, at position: Int) {
        let destination = destination.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count { destination[i] = bytes[(position + i) & (capacity - 1)] }
    }

    /// Appends a message of `size` bytes; false when it does not fit now.
    func write(size: UInt32, data: UnsafeRawPointer?) -> Bool {
        let write = writePosition.load(ordering: .relaxed), read = readPosition.load(ordering: .acquiring)
        let needed = 4 + Int(size)
        guard needed <= capacity - (write - read) else { return false }
        var length = size
        withUnsafeBytes(of: &length) { copyIn($0.baseAddress!, count: 4, at: write) }
        if let data, size > 0 { copyIn(data, count: Int(size), at: write + 4) }
        writePosition.store(write + needed, ordering: .releasing)
        return true
    }

    /// Takes the oldest message into `buffer` (at least `bufferSize` bytes); its size, or nil when empty. A
    /// message larger than the buffer is dropped (returns 0).
    func read(into buffer: UnsafeMutableRawPointer, bufferSize: Int) -> UInt32? {
        let read = readPosition.load(ordering: .relaxed), write = writePosition.load(ordering: .acquiring)
        guard write - read >= 4 else { return nil }
        var length: UInt32 = 0
        withUnsafeMutableBytes(of: &length) { copyOut($0.baseAddress!, count: 4, at: read) }
        if Int(length) <= bufferSize { copyOut(buffer, count: Int(length), at: read + 4) }
        readPosition.store(read + 4 + Int(length), ordering: .releasing)
        return Int(length) <= bufferSize ? length : 0
    }
}

/// The non-real-time thread of one instance's worker: takes requests from the render thread, calls the
/// plugin's `work`, queues its responses for the render thread. Polls every millisecond when idle, so the
/// render thread only writes to a queue (no semaphore, no lock).
// Why unchecked: the plugin's `work` runs on the worker thread only; the rings carry the rest.
final class LV2WorkerThread: @unchecked Sendable {
    static let messageCapacity = 8192
    let requests = ByteRing(capacity: 1 << 16)
    let responses = ByteRing(capacity: 1 << 16)
    private let working = ServiceThread()
    private let work: @convention(c) (LV2_Handle?, LV2_Worker_Respond_Function?, LV2_Worker_Respond_Handle?, UInt32, UnsafeRawPointer?) -> LV2_Worker_Status
    private let handle: LV2_Handle?

    init(work: @escaping @convention(c) (LV2_Handle?, LV2_Worker_Respond_Function?, LV2_Worker_Respond_Handle?, UInt32, UnsafeRawPointer?) -> LV2_Worker_Status,
         handle: LV2_Handle?, name: String) {
        self.work = work
        self.handle = handle
        working.start(name: "lv2 worker: \(name)") { [self] in run() }
    }

    private func run() {
        let message = UnsafeMutableRawPointer.allocate(byteCount: Self.messageCapacity, alignment: 16)
        defer { message.deallocate() }
        let respond: LV2_Worker_Respond_Function = { handle, size, data in
            guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
            let worker = Unmanaged<LV2WorkerThread>.fromOpaque(handle).takeUnretainedValue()
            return worker.responses.write(size: size, data: data) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE
        }
        while !working.isStopRequested {
            guard let size = requests.read(into: message, bufferSize: Self.messageCapacity) else {
                // The render thread signals no one (it only writes to the queue): look again in 1 ms.
                working.waitForStop(nanoseconds: 1_000_000)
                continue
            }
            _ = work(handle, respond, Unmanaged.passUnretained(self).toOpaque(), size, message)
        }
    }

    /// Stops the thread and waits for it to end.
    func stop() {
        working.stop()
    }
}
