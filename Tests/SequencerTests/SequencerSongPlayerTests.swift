import ALSA
import MIDICore
import MIDIFile
import SequencerPlayback
import XCTest

/// A song played to a port arrives complete, in order, and on time by the receiver's own kernel clock.
final class SequencerSongPlayerTests: XCTestCase {
    func testSongArrivesInOrderAtItsExactTimes() throws {
        try requireSequencer()
        let listener = try SequencerClient(name: "seqplay song listener")
        let clock = try SequencerQueue(client: listener, name: "listener clock")
        let input = try listener.createPort(name: "in", capabilities: .input, timestampQueue: clock)
        try clock.start()

        var events = [TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))), TimedEvent(tick: 1000, .meta(.tempo(microsecondsPerQuarter: 300_000)))]
        for index in 0..<300 {  // more than the player's preroll
            events.append(TimedEvent(tick: Int64(index * 10), .midi(.noteOn(channel: 0, note: UInt8(index % 128), velocity: 1))))
        }
        let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: events)])
        let schedule = try SequencerSchedule(sequence: sequence, destinations: [input.address])
        let player = try SequencerSongPlayer(schedule: schedule, client: try SequencerClient(name: "seqplay song player"))
        // Read while it plays: the listener's kernel input pool holds only 200 events.
        let played = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var finished = false
        DispatchQueue.global().async {
            finished = (try? player.play()) ?? false
            played.signal()
        }
        let received = try receive(schedule.entries.count, from: listener)
        XCTAssertEqual(played.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(finished)
        XCTAssertEqual(received.map(\.message), schedule.entries.map(\.message))
        let stamps = received.compactMap { event -> Int64? in
            if case .realTime(let nanoseconds) = event.timestamp { return Int64(nanoseconds) }
            return nil
        }
        XCTAssertEqual(stamps.count, schedule.entries.count)
        // The two queues started at different moments: align them by the median difference, then every
        // event must sit within the bound of its exact time.
        let differences = zip(stamps, schedule.entries).map { $0 - Int64($1.nanoseconds) }
        let offset = differences.sorted()[differences.count / 2]
        let worst = differences.map { abs($0 - offset) }.max() ?? .max
        let bound = Self.runsUnderEmulation ? 10_000_000 : 1_000_000
        print("song to port: \(stamps.count) events, worst kernel timestamp error \(worst) ns (bound \(bound) ns)")
        XCTAssertLessThan(worst, Int64(bound), "worst timestamp error \(worst) ns")
    }

    /// Under software emulation (the alsa-vm guest on a machine without KVM) the guest's timer interrupts
    /// come several milliseconds late when the host is busy (0.5 ms measured on a quiet host, 2-7 ms
    /// under load), so the 1 ms bound of real hardware is relaxed to 10 ms there; the figure is printed.
    static var runsUnderEmulation: Bool {
        ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" hypervisor")
    }
}
