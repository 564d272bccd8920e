import Foundation
import NetworkMIDI
import Player
import RealtimeSupport

/// `seqplay monitor --network`: prints each event network MIDI peers send, with its scheduled time
/// (the sender's timestamp through the clock-sync offset, plus the playout latency; seconds since the
/// monitor started), the peer's name, the decoded message and note names. The session's threads only
/// queue the events; this thread prints them.
extension MonitorCommand {
    /// How often the printing thread looks at the queue.
    static let pollInterval: UInt32 = 1_000

    func monitorNetwork() {
        let queue = LiveMIDIQueue(capacity: 1 << 16)
        let input: NetworkLiveInput
        do {
            input = try NetworkLiveInput(configuration: networkOptions.configuration(name: "seqplay monitor"), feeding: queue)
        } catch {
            CommandLineOutput.fail("\(error)", .networkUnavailable)
        }
        let interruption = Interruption()
        let startTime = MonotonicClock.now()
        let deadline = duration.map { startTime + UInt64($0 * 1e9) }
        FileHandle.standardError.write(Data("Waiting for network MIDI peers at \(input.location). Press Ctrl+C to end.\n".utf8))
        if !json {
            SequencerCommandSupport.printLine("    Time  Source  Event                  Ch  Data")
        }
        var received = 0
        while interruption.signalReceived == nil && count.map({ received < $0 }) ?? true
                && deadline.map({ MonotonicClock.now() < $0 }) ?? true {
            guard let event = queue.peek() else {
                usleep(Self.pollInterval)
                continue
            }
            queue.pop()
            received += 1
            let time = Double(Int64(bitPattern: event.time &- startTime)) / 1e9
            let description = EventDescription(event.message, time: time, source: input.sourceName(event.source))
            do {
                SequencerCommandSupport.printLine(json ? try SequencerCommandSupport.json(description, pretty: false) : description.line)
            } catch {
                CommandLineOutput.fail("\(error)", .generic)
            }
        }
        input.stop()
        if queue.droppedCount > 0 {
            CommandLineOutput.note("\(queue.droppedCount) events were dropped (the queue was full)")
        }
    }
}
