import Atomics
import JACK

/// A JACK client that records its input ports (`in_1`…) into memory from the moment it is active,
/// like `jack_rec` but inspectable in-process. Allocates its buffers up front.
public final class JACKTestRecorder: JACKProcessHandler, @unchecked Sendable {
    package let client: JACKClient
    package let ports: [JACKAudioPort]
    private let capacity: Int
    private var channels: [UnsafeMutableBufferPointer<Float>]
    private let recorded = ManagedAtomic(0)
    private let firstFrame = ManagedAtomic<Int64>(-1)

    /// A recorder named `name` with `channelCount` input ports, keeping at most `capacity` frames.
    public init(name: String, serverName: String, channelCount: Int = 2, capacity: Int) throws {
        let client = try JACKClient(name: name, serverName: serverName)
        self.client = client
        ports = try (1...channelCount).map { try client.registerAudioPort(named: "in_\($0)", direction: .input) }
        self.capacity = capacity
        channels = (0..<channelCount).map { _ in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity)
            buffer.initialize(repeating: 0)
            return buffer
        }
        try client.setProcessHandler(self)
        try client.activate()
    }

    deinit {
        client.close()
        channels.forEach { $0.deallocate() }
    }

    /// Frames recorded so far.
    public var frameCount: Int { recorded.load(ordering: .acquiring) }

    /// The server's frame time of the first frame recorded (-1 before it): recorded frame i is
    /// server frame `firstFrameTime + i`, as the server drops no cycle of a client in synchronous mode.
    public var firstFrameTime: Int64 { firstFrame.load(ordering: .acquiring) }

    /// What channel `channel` recorded so far.
    public func samples(channel: Int) -> [Float] { Array(channels[channel][0..<frameCount]) }

    public func process(frameCount: Int) -> Bool {
        let start = recorded.load(ordering: .relaxed)
        let frames = min(frameCount, capacity - start)
        guard frames > 0 else { return true }
        if start == 0 { firstFrame.store(client.lastFrameTime, ordering: .releasing) }
        for (channel, port) in ports.enumerated() {
            let input = port.buffer(frameCount: frameCount)
            for frame in 0..<frames { channels[channel][start + frame] = input[frame] }
        }
        recorded.store(start + frames, ordering: .releasing)
        return true
    }
}
