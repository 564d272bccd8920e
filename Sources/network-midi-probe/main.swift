// network-midi-probe: a small driver for NetworkMIDI used by the interop test and the latency
// benchmark (the seqplay CLI wires sessions into the player and sampler host).
//
//   network-midi-probe send --connect HOST:PORT [--listen ADDR:PORT] [--notes N] [--sync K] [--stay S]
//                           [--timeout S] [--go-when FILE]
//       invites HOST:PORT, waits (up to --timeout seconds, default 15) for K clock-sync exchanges and,
//       with --go-when, until FILE exists (a test says when its peers listen), sends a short phrase
//       (notes, controllers, program, pitch bend, a SysEx), prints what it measured, stays S seconds
//       (default 0) printing every message received, then ends with BY.
//   network-midi-probe listen [--listen ADDR:PORT] [--seconds S] [--latency MS]
//       accepts invitations and prints every message received, with its scheduled time.
//   network-midi-probe bench [--events N]
//       two sessions on 127.0.0.1: send→receive latency (median, p99) and sustained events/s.
import Foundation
import MIDICore
import NetworkMIDI
import SeqplaySupport
import Synchronization

struct ProbeError: Error, CustomStringConvertible {
    let description: String
}

/// Command-line options as `--name value` pairs after the mode.
struct Options {
    let values: [String: String]

    init(_ arguments: ArraySlice<String>) throws {
        var values: [String: String] = [:]
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard name.hasPrefix("--"), let value = iterator.next() else { throw ProbeError(description: "expected --option value, got \(name)") }
            values[String(name.dropFirst(2))] = value
        }
        self.values = values
    }

    func int(_ name: String, default fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else { throw ProbeError(description: "--\(name) needs a number") }
        return value
    }

    func address(_ name: String, default fallback: String) throws -> NetworkMIDIAddress {
        try NetworkMIDIAddress.resolve(values[name] ?? fallback)
    }
}

/// Prints received messages with their scheduled time relative to the first one.
final class PrintingReceiver: NetworkMIDITimedReceiver {
    private var start: UInt64?
    func receive(_ message: MIDIMessage) { receive(message, scheduledAt: MonotonicClock.now(), fromPeer: 0) }
    func receive(_ message: MIDIMessage, scheduledAt time: UInt64, fromPeer ssrc: UInt32) {
        let origin = start ?? time
        start = origin
        print(String(format: "%10.4f s  %08x  %@", Double(Int64(time) - Int64(origin)) / 1e9, ssrc, String(describing: message)))
    }
}

func runSend(_ options: Options) throws {
    var configuration = NetworkMIDISession.Configuration()
    configuration.name = "seqplay probe"
    configuration.listenAddress = try options.address("listen", default: "127.0.0.1:0")
    let stay = try options.int("stay", default: 0)
    let session = try NetworkMIDISession(configuration: configuration, deliveringTo: stay > 0 ? PrintingReceiver() : nil)
    defer { session.stop() }
    let target = try options.address("connect", default: "127.0.0.1:5004")
    let exchanges = try options.int("sync", default: 2)
    let timeout = try options.int("timeout", default: 15)
    session.connect(to: target)
    guard session.waitForConnectedPeers(1, clockSyncExchanges: exchanges, timeout: Double(timeout)) else {
        throw ProbeError(description: "no session with \(target) (or no clock sync) within \(timeout) s")
    }
    if let go = options.values["go-when"], !waitForFile(go, until: MonotonicClock.now() + UInt64(timeout) * 1_000_000_000) {
        throw ProbeError(description: "\(go) did not appear within \(timeout) s")
    }
    let notes = try options.int("notes", default: 8)
    session.send([.programChange(channel: 0, program: 5), .controlChange(channel: 0, controller: 7, value: 100)])
    // The phrase's rhythm: a message every 20 ms, on a grid of deadlines.
    var beat = MonotonicClock.now()
    for i in 0..<notes {
        let note = UInt8(60 + i % 12)
        session.receive(.noteOn(channel: 0, note: note, velocity: 100))
        beat += 20_000_000
        MonotonicClock.wait(until: beat)
        session.receive(.pitchBend(channel: 0, value: UInt16(8192 + i * 100)))
        session.receive(.noteOff(channel: 0, note: note, velocity: 0))
        beat += 20_000_000
        MonotonicClock.wait(until: beat)
    }
    session.receive(.systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]))
    // Half a second for the peer's answers (its journal acknowledgements, another clock sync) before the report.
    MonotonicClock.wait(until: MonotonicClock.now() + 500_000_000)
    for peer in session.peers {
        print("peer \(peer.name) at \(peer.controlAddress): clock offset \(peer.clockOffset.map { "\($0) s" } ?? "unknown"),"
              + " latency \(peer.latency.map { "\($0 * 1000) ms" } ?? "unknown"), \(peer.clockSyncExchanges) clock syncs")
    }
    print("sent \(session.statistics.dataPacketsSent) data packets")
    MonotonicClock.wait(until: MonotonicClock.now() + UInt64(stay) * 1_000_000_000)  // the time asked to stay
}

/// Waits until `path` exists or the monotonic `deadline` passes (returns whether it exists): inotify
/// tells when a file is made or moved into its folder.
func waitForFile(_ path: String, until deadline: UInt64) -> Bool {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let watcher = inotify_init1(Int32(IN_CLOEXEC))
    defer { if watcher >= 0 { close(watcher) } }
    guard watcher >= 0, inotify_add_watch(watcher, folder, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
        return FileManager.default.fileExists(atPath: path)
    }
    var events = [UInt8](repeating: 0, count: 4096)
    while !FileManager.default.fileExists(atPath: path) {
        let now = MonotonicClock.now()
        guard now < deadline else { return false }
        var descriptor = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000))) > 0 { _ = read(watcher, &events, events.count) }
    }
    return true
}

func runListen(_ options: Options) throws {
    var configuration = NetworkMIDISession.Configuration()
    configuration.name = "seqplay probe"
    configuration.listenAddress = try options.address("listen", default: "127.0.0.1:5004")
    configuration.playoutLatency = Double(try options.int("latency", default: 5)) / 1000
    configuration.onPeerEvent = { print("peer event: \($0)") }
    let session = try NetworkMIDISession(configuration: configuration, deliveringTo: PrintingReceiver())
    print("listening on \(session.controlAddress)")
    let seconds = UInt64(max(0, try options.int("seconds", default: 10)))
    MonotonicClock.wait(until: MonotonicClock.now() + seconds * 1_000_000_000)  // the time asked to listen
    session.stop()
    print("statistics: \(session.statistics)")
}

/// Counts the messages that arrive and keeps the arrival time of each note-on, by its note/velocity code;
/// `wait(forCount:seconds:)` sleeps until a count is reached (the receiving side posts it).
final class ArrivalRecorder: MIDIReceiver, Sendable {
    private struct State {
        var arrivals: [UInt64]
        var count = 0
        var awaited = Int.max
    }
    private let state: Mutex<State>
    private let reached = DispatchSemaphore(value: 0)

    init(capacity: Int) { state = Mutex(State(arrivals: [UInt64](repeating: 0, count: capacity))) }

    func receive(_ message: MIDIMessage) {
        let now = MonotonicClock.now()
        var index: Int?
        if case .noteOn(let channel, let note, let velocity) = message { index = Int(channel) << 14 | Int(note) << 7 | Int(velocity) }
        let reachedNow = state.withLock { state in
            if let index, index < state.arrivals.count { state.arrivals[index] = now }
            state.count += 1
            return state.count == state.awaited
        }
        if reachedNow { reached.signal() }
    }

    /// Waits until `count` messages have arrived in all, or `seconds` pass; returns the count and the arrival times.
    func wait(forCount count: Int, seconds: Double) -> (count: Int, arrivals: [UInt64]) {
        let pending = state.withLock { state in
            state.awaited = count
            return state.count < count
        }
        if pending { _ = reached.wait(timeout: .now() + seconds) }
        let result = state.withLock { state in
            state.awaited = .max
            return (state.count, state.arrivals)
        }
        while reached.wait(timeout: .now()) == .success {}  // a post that came after the time ran out
        return result
    }
}

func runBenchmark(_ options: Options) throws {
    let events = min(try options.int("events", default: 10_000), 1 << 18)
    var configuration = NetworkMIDISession.Configuration()
    configuration.listenAddress = NetworkMIDIAddress(host: "127.0.0.1", port: 0)!
    configuration.playoutLatency = 0
    let recorder = ArrivalRecorder(capacity: 1 << 18)
    let receiving = try NetworkMIDISession(configuration: configuration, deliveringTo: recorder)
    let sending = try NetworkMIDISession(configuration: configuration, deliveringTo: nil)
    defer { sending.stop(); receiving.stop() }
    sending.connect(to: receiving.controlAddress)
    guard sending.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 5) else { throw ProbeError(description: "loopback session failed") }

    // Latency: one event per packet, 200 µs apart, each a distinct note-on code.
    var sentAt = [UInt64](repeating: 0, count: events)
    var next = MonotonicClock.now()
    for i in 0..<events {
        let message = MIDIMessage.noteOn(channel: UInt8(i >> 14), note: UInt8((i >> 7) & 0x7F), velocity: UInt8(i & 0x7F))
        sentAt[i] = MonotonicClock.now()
        sending.receive(message)
        next += 200_000
        MonotonicClock.wait(until: next)
    }
    let arrivals = recorder.wait(forCount: events, seconds: 5).arrivals
    let latencies = (0..<events).compactMap { i -> Double? in
        arrivals[i] == 0 ? nil : Double(arrivals[i] - sentAt[i]) / 1000
    }.sorted()
    guard !latencies.isEmpty else { throw ProbeError(description: "nothing received") }
    print(String(format: "latency over %d events (%d received): median %.1f µs, p99 %.1f µs, max %.1f µs",
                 events, latencies.count, latencies[latencies.count / 2], latencies[latencies.count * 99 / 100],
                 latencies.last!))

    // Throughput: as fast as the sender can go, one event per packet, for 2 seconds.
    let start = MonotonicClock.now()
    var sent = 0
    while MonotonicClock.now() - start < 2_000_000_000 {
        sending.receive(.controlChange(channel: 1, controller: 1, value: UInt8(sent & 0x7F)))
        sent += 1
    }
    _ = recorder.wait(forCount: sent + events, seconds: 2)
    let elapsed = Double(MonotonicClock.now() - start) / 1e9
    let arrived = receiving.statistics.dataPacketsReceived - events
    print(String(format: "throughput: %d events sent in 2 s, %d received: %.0f events/s sustained (%.1f%% delivered)",
                 sent, arrived, Double(arrived) / elapsed, 100 * Double(arrived) / Double(sent)))
}

let arguments = CommandLine.arguments
do {
    let options = try Options(arguments.dropFirst(2))
    switch arguments.count > 1 ? arguments[1] : "" {
    case "send": try runSend(options)
    case "listen": try runListen(options)
    case "bench": try runBenchmark(options)
    default: throw ProbeError(description: "usage: network-midi-probe send|listen|bench [--option value …]")
    }
} catch {
    FileHandle.standardError.write("network-midi-probe: \(error)\n".data(using: .utf8)!)
    exit(1)
}
