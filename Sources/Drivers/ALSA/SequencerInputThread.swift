import CALSA
import MIDICore
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// A dedicated thread that reads everything arriving at a client's ports and hands each MIDI message
/// to a handler as it arrives. Waits in poll(2); in steady state it allocates nothing, takes no lock
/// and does no I/O besides reading the sequencer (System Exclusive messages are the exception: each
/// becomes a new array). The handler runs on this thread and must keep to the same rules.
///
/// While it runs, nothing else may read from the client. It keeps itself alive until `stop()`.
public final class SequencerInputThread {
    private let client: SequencerClient
    private let handler: (SequencerInput) -> Void
    /// A pipe whose write end `stop()` writes to, waking the thread out of poll.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: pthread_t?

    /// Starts reading `client`'s input, calling `handler` for every MIDI message.
    public convenience init(client: SequencerClient, handler: @escaping (SequencerEvent) -> Void) throws(SequencerError) {
        try self.init(reading: client, inputHandler: { input in
            if case .midi(let event) = input { handler(event) }
        })
    }

    /// Starts reading `client`'s input, calling `inputHandler` for every MIDI message and every
    /// system announcement (see `SequencerClient.listenToAnnouncements`).
    public init(reading client: SequencerClient, inputHandler: @escaping (SequencerInput) -> Void) throws(SequencerError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw .callFailed(call: "pipe", reason: String(cString: strerror(errno)))
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        self.client = client
        self.handler = inputHandler
        do throws(JoinableThread.CreationError) {
            thread = try JoinableThread.start { self.run() }
        } catch {
            close(wakeRead)
            close(wakeWrite)
            throw .callFailed(call: "pthread_create", reason: String(cString: strerror(error.code)))
        }
    }

    /// Starts reading `client`'s input and passing every MIDI message to `receiver`.
    public convenience init(client: SequencerClient, receiver: any MIDIReceiver) throws(SequencerError) {
        try self.init(client: client) { receiver.receive($0.message) }
    }

    /// Stops the thread and waits for it to finish (events not yet read stay in the client).
    public func stop() {
        guard let thread else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        pthread_join(thread, nil)
        self.thread = nil
        close(wakeRead)
        close(wakeWrite)
    }

    deinit {
        stop()
    }

    private func run() {
        var descriptors = client.inputPollDescriptors
        descriptors.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
        let wakeIndex = descriptors.count - 1
        descriptors.withUnsafeMutableBufferPointer { descriptors in
            while true {
                let ready = poll(descriptors.baseAddress, nfds_t(descriptors.count), -1)
                if ready < 0 && errno != EINTR { return }
                if descriptors[wakeIndex].revents != 0 { return }
                // Read what has arrived; `nextInput` with timeout 0 returns nil once the client is drained.
                while let input = try? client.nextInput(timeoutMilliseconds: 0) {
                    handler(input)
                }
            }
        }
    }
}
