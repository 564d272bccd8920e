import ALSA
import MIDICore
import MIDIFile
import SequencerPlayback
import XCTest

/// A song played to a port arrives complete, in order, at exactly the times seqplay scheduled on the
/// kernel queue; how late the kernel delivered it is printed, and bounded only on real hardware.
final class SequencerSongPlayerTests: XCTestCase {
    func testSongArrivesInOrderAtItsExactTimes() throws {
        try requireSequencer()
        // Two receivers of the same stream: a port that keeps each event's time on seqplay's queue (what
        // seqplay controls, exact), and one the kernel re-stamps with the arrival time on its own clock
        // (how late delivery was: the host's business under emulation).
        let scheduledListener = try SequencerClient(name: "seqplay song listener")
        let scheduledInput = try scheduledListener.createPort(name: "in", capabilities: .input)
        let arrivalListener = try SequencerClient(name: "seqplay song arrival")
        let clock = try SequencerQueue(client: arrivalListener, name: "listener clock")
        let arrivalInput = try arrivalListener.createPort(name: "in", capabilities: .input, timestampQueue: clock)
        try clock.start()

        var events = [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))), TimedEvent(tick: 1000, .meta(.tempo(microsecondsPerQuarter: 300_000)))]
        for index in 0..<300 {  // more than the player's preroll
            events.append(TimedEvent(tick: Int64(index * 10), .midi(.noteOn(channel: 0, note: UInt8(index % 128), velocity: 1))))
        }
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: events)])
        let schedule = try SequencerSchedule(sequence: sequence, destinations: [scheduledInput.address])
        let player = try SequencerSongPlayer(schedule: schedule, client: try SequencerClient(name: "seqplay song player"),
                                             sendsToSubscribers: true)
        try arrivalListener.connect(from: player.sourceAddress, to: arrivalInput.address)
        // Read while it plays: each listener's kernel input pool holds only 200 events.
        let count = schedule.entries.count
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var finished = false
        nonisolated(unsafe) var arrived: [SequencerEvent] = []
        DispatchQueue.global().async {
            finished = (try? player.play()) ?? false
            done.signal()
        }
        nonisolated(unsafe) let arrivalReader = arrivalListener  // read by that thread alone until done
        DispatchQueue.global().async {
            arrived = (try? receive(count, from: arrivalReader)) ?? []
            done.signal()
        }
        let received = try receive(count, from: scheduledListener)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(finished)
        XCTAssertEqual(received.map(\.message), schedule.entries.map(\.message))
        XCTAssertEqual(arrived.map(\.message), schedule.entries.map(\.message))
        XCTAssertEqual(received.map(\.timestamp), schedule.entries.map {
            .realTime(nanoseconds: $0.nanoseconds + SequencerSongPlayer.leadNanoseconds)
        }, "each event carries exactly the time it was scheduled for")

        // Delivery: the two queues started at different moments, so align them by the median difference.
        let stamps = arrived.compactMap { event -> Int64? in
            if case .realTime(let nanoseconds) = event.timestamp { return Int64(nanoseconds) }
            return nil
        }
        XCTAssertEqual(stamps.count, count)
        let differences = zip(stamps, schedule.entries).map { $0 - Int64($1.nanoseconds) }
        let offset = differences.sorted()[differences.count / 2]
        let worst = differences.map { abs($0 - offset) }.max() ?? .max
        let hardware = !sequencerTimingIsEmulated
        print("song to port: \(count) events at their scheduled times; delivery off the median by at most \(worst) ns"
            + (hardware ? " (bound 1 ms)" : " (emulated: not bounded)"))
        if hardware { XCTAssertLessThan(worst, 1_000_000, "worst delivery error \(worst) ns") }
    }
}
