import Foundation
import MIDIFile
import NetworkMIDI
import SeqplaySupport

/// `seqplay monitor --network`: prints each event network MIDI peers send, with its scheduled time
/// (the sender's timestamp through the clock-sync offset, plus the playout latency; seconds since the
/// monitor started), the peer's name, the decoded message and note names. The session's delivering
/// thread only queues the events; this thread prints them.
extension MonitorCommand {
    func monitorNetwork() throws {
        let queue = NetworkMIDIEventQueue()
        let session = try CommandFailure.describing(.networkUnavailable) { try NetworkMIDISession(configuration: networkOptions.configuration(name: "seqplay monitor"), deliveringTo: queue) }
        let interruption = Interruption()
        let startTime = MonotonicClock.now()
        let deadline = duration.map { startTime + UInt64($0 * 1e9) }
        CommandLineOutput.writeStandardError(Data("Waiting for network MIDI peers at \(session.controlAddress). Press Ctrl+C to end.\n".utf8))
        if !json {
            try SequencerCommandSupport.printLine(MonitoredEvent.header)
        }
        var received = 0
        var peerNames: [UInt32: String] = [:]
        // A signal wakes the wait for the next event; the loop then sees it and ends.
        _ = try interruption.run(stopping: { queue.wake() }) {
            while interruption.signalReceived == nil && count.map({ received < $0 }) ?? true
                    && deadline.map({ MonotonicClock.now() < $0 }) ?? true {
                guard let event = queue.next(until: deadline) else { continue }
                received += 1
                if peerNames[event.ssrc] == nil, let peer = session.peers.first(where: { $0.ssrc == event.ssrc }) {
                    peerNames[event.ssrc] = peer.name  // kept, so events queued after their peer left keep its name
                }
                let time = Double(Int64(bitPattern: event.time &- startTime)) / 1e9
                let description = MonitoredEvent(event.message, time: time,
                                                   source: peerNames[event.ssrc] ?? String(format: "%08X", event.ssrc))
                let line = try CommandFailure.describing(.generic) { json ? try CommandLineOutput.json(description, pretty: false) : description.line }
                try SequencerCommandSupport.printLine(line)
            }
            return true
        }
        session.stop()
        if queue.dropped > 0 {
            CommandLineOutput.note("\(queue.dropped) events were dropped (the queue was full)")
        }
    }
}
