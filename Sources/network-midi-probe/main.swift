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
final class PrintingReceiver: NetworkMIDITimedReceiver, @unchecked Sendable {
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
    if let go = options.values["go-when"] {
        let deadline = Date().addingTimeInterval(Double(timeout))
        while !FileManager.default.fileExists(atPath: go) {
            guard Date() < deadline else { throw ProbeError(description: "\(go) did not appear within \(timeout) s") }
            usleep(50_000)  // a test tool waiting for its script's go-ahead file
        }
    }
    let notes = try options.int("notes", default: 8)
    session.send([.programChange(channel: 0, program: 5), .controlChange(channel: 0, controller: 7, value: 100)])
    for i in 0..<notes {
        let note = UInt8(60 + i % 12)
        session.receive(.noteOn(channel: 0, note: note, velocity: 100))
        usleep(20_000)
        session.receive(.pitchBend(channel: 0, value: UInt16(8192 + i * 100)))
        session.receive(.noteOff(channel: 0, note: note, velocity: 0))
        usleep(20_000)
    }
    session.receive(.systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]))
    usleep(500_000)
    for peer in session.peers {
        print("peer \(peer.name) at \(peer.controlAddress): clock offset \(peer.clockOffset.map { "\($0) s" } ?? "unknown"),"
              + " latency \(peer.latency.map { "\($0 * 1000) ms" } ?? "unknown"), \(peer.clockSyncExchanges) clock syncs")
    }
    print("sent \(session.statistics.dataPacketsSent) data packets")
    Thread.sleep(forTimeInterval: Double(stay))
}

func runListen(_ options: Options) throws {
    var configuration = NetworkMIDISession.Configuration()
    configuration.name = "seqplay probe"
    configuration.listenAddress = try options.address("listen", default: "127.0.0.1:5004")
    configuration.playoutLatency = Double(try options.int("latency", default: 5)) / 1000
    configuration.onPeerEvent = { print("peer event: \($0)") }
    let session = try NetworkMIDISession(configuration: configuration, deliveringTo: PrintingReceiver())
    print("listening on \(session.controlAddress)")
    Thread.sleep(forTimeInterval: Double(try options.int("seconds", default: 10)))
    session.stop()
    print("statistics: \(session.statistics)")
}

/// Collects arrival times of note-ons keyed by their note/velocity code.
final class ArrivalRecorder: MIDIReceiver, @unchecked Sendable {
    var arrivals: [UInt64]
    private(set) var count = 0
    private let lock = NSLock()
    init(capacity: Int) { arrivals = [UInt64](repeating: 0, count: capacity) }
    func receive(_ message: MIDIMessage) {
        let now = MonotonicClock.now()
        guard case .noteOn(let channel, let note, let velocity) = message else { return }
        let index = Int(channel) << 14 | Int(note) << 7 | Int(velocity)
        lock.lock()
        if index < arrivals.count { arrivals[index] = now }
        count += 1
        lock.unlock()
    }
    var received: Int { lock.lock(); defer { lock.unlock() }; return count }
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
    for i in 0..<events {
        let message = MIDIMessage.noteOn(channel: UInt8(i >> 14), note: UInt8((i >> 7) & 0x7F), velocity: UInt8(i & 0x7F))
        sentAt[i] = MonotonicClock.now()
        sending.receive(message)
        NetworkClock.sleepFor(nanoseconds: 200_000)
    }
    _ = waitUntil(seconds: 5) { recorder.received >= events }
    let latencies = (0..<events).compactMap { i -> Double? in
        recorder.arrivals[i] == 0 ? nil : Double(recorder.arrivals[i] - sentAt[i]) / 1000
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
    _ = waitUntil(seconds: 2) { receiving.statistics.dataPacketsReceived >= sent + events }
    let elapsed = Double(MonotonicClock.now() - start) / 1e9
    let arrived = receiving.statistics.dataPacketsReceived - events
    print(String(format: "throughput: %d events sent in 2 s, %d received: %.0f events/s sustained (%.1f%% delivered)",
                 sent, arrived, Double(arrived) / elapsed, 100 * Double(arrived) / Double(sent)))
}

func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
    while MonotonicClock.now() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

extension NetworkClock {
    static func sleepFor(nanoseconds: UInt64) {
        var spec = timespec(tv_sec: 0, tv_nsec: Int(nanoseconds))
        nanosleep(&spec, nil)
    }
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
