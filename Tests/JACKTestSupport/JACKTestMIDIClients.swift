import Atomics
import JACK

/// A JACK client that sends MIDI from its output port `out` at server frame times given in
/// advance, each message at its exact frame (the cycle containing it, at its offset). Times are
/// relative to the first cycle after `arm()`. Allocates up front.
public final class JACKTestMIDISender: JACKProcessHandler, @unchecked Sendable {
    package let client: JACKClient
    package let port: JACKMIDIPort
    private let schedule: [(offset: Int64, bytes: [UInt8])]
    private var next = 0
    private let armed = ManagedAtomic(false)
    private let base = ManagedAtomic<Int64>(-1)
    private let missed = ManagedAtomic(0)

    /// A sender named `name` that, once armed, sends each message `offset` frames after its first cycle.
    public init(name: String, serverName: String, schedule: [(offset: Int64, bytes: [UInt8])]) throws {
        client = try JACKClient(name: name, serverName: serverName)
        port = try client.registerMIDIPort(named: "out", direction: .output)
        self.schedule = schedule.sorted { $0.offset < $1.offset }
        try client.setProcessHandler(self)
        try client.activate()
    }

    deinit { client.close() }

    /// Starts the schedule at the next cycle.
    public func arm() { armed.store(true, ordering: .releasing) }

    /// The server frame time schedule offsets count from (-1 before the first armed cycle).
    public var baseFrameTime: Int64 { base.load(ordering: .acquiring) }
    /// Whether every message has been written.
    public var isDone: Bool { base.load(ordering: .acquiring) >= 0 && sentCount == schedule.count }
    /// Messages written (or missed) so far.
    public var sentCount: Int { sent.load(ordering: .acquiring) }
    /// Messages whose frame had passed before they could be written (none in a correct run).
    public var missedCount: Int { missed.load(ordering: .relaxed) }
    private let sent = ManagedAtomic(0)

    public func process(frameCount: Int) -> Bool {
        let buffer = port.outputBuffer(frameCount: frameCount)
        guard armed.load(ordering: .acquiring) else { return true }
        let cycleStart = client.lastFrameTime
        if base.load(ordering: .relaxed) < 0 { base.store(cycleStart, ordering: .releasing) }
        let origin = base.load(ordering: .relaxed)
        while next < schedule.count, origin + schedule[next].offset < cycleStart + Int64(frameCount) {
            let frame = origin + schedule[next].offset - cycleStart
            if frame < 0 {
                missed.wrappingIncrement(ordering: .relaxed)
            } else {
                schedule[next].bytes.withUnsafeBufferPointer { _ = buffer.write($0, atFrame: Int(frame)) }
            }
            next += 1
            sent.store(next, ordering: .releasing)
        }
        return true
    }
}

/// A JACK client that records what arrives at its MIDI input port `in`: each event's bytes and
/// server frame time (cycle start + offset). Allocates up front.
public final class JACKTestMIDIRecorder: JACKProcessHandler, @unchecked Sendable {
    package let client: JACKClient
    package let port: JACKMIDIPort
    private let frames: UnsafeMutableBufferPointer<Int64>
    /// The first 3 bytes of each event and how many of them it has.
    private let bytes: UnsafeMutableBufferPointer<(UInt8, UInt8, UInt8, UInt8)>
    private let count = ManagedAtomic(0)

    public init(name: String, serverName: String, capacity: Int = 65_536) throws {
        client = try JACKClient(name: name, serverName: serverName)
        port = try client.registerMIDIPort(named: "in", direction: .input)
        frames = .allocate(capacity: capacity)
        frames.initialize(repeating: 0)
        bytes = .allocate(capacity: capacity)
        bytes.initialize(repeating: (0, 0, 0, 0))
        try client.setProcessHandler(self)
        try client.activate()
    }

    deinit {
        client.close()
        frames.deallocate()
        bytes.deallocate()
    }

    /// What was recorded so far: each event's server frame time and bytes (at most its first 3).
    public var events: [(frame: Int64, bytes: [UInt8])] {
        (0..<count.load(ordering: .acquiring)).map { index in
            let b = bytes[index]
            return (frames[index], Array([b.0, b.1, b.2].prefix(Int(b.3))))
        }
    }

    public func process(frameCount: Int) -> Bool {
        let cycleStart = client.lastFrameTime
        var index = count.load(ordering: .relaxed)
        for event in port.events(frameCount: frameCount) where index < frames.count {
            frames[index] = cycleStart + Int64(event.frame)
            let b = event.bytes
            bytes[index] = (b.count > 0 ? b[0] : 0, b.count > 1 ? b[1] : 0, b.count > 2 ? b[2] : 0, UInt8(min(b.count, 3)))
            index += 1
        }
        count.store(index, ordering: .releasing)
        return true
    }
}
