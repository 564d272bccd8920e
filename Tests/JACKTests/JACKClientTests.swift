import AllocationCounter
import Atomics
import Foundation
import JACK
import JACKTestSupport
import XCTest

/// The JACK wrapper against a real server (`jackd -d dummy`, started per test).
final class JACKClientTests: XCTestCase {
    private var server: JACKTestServer!

    override func setUpWithError() throws {
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
        server = try JACKTestServer()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    func testNoServerIsATypedError() {
        XCTAssertThrowsError(try JACKClient(name: "nobody", serverName: "seqplay-no-such-server")) { error in
            XCTAssertEqual(error as? JACKError, .noServer(server: "seqplay-no-such-server"))
        }
    }

    func testClientSeesTheServersRateAndBlockSizeAndGetsAUniqueName() throws {
        let first = try JACKClient(name: "seqplay", serverName: server.name)
        let second = try JACKClient(name: "seqplay", serverName: server.name)
        XCTAssertEqual(first.sampleRate, 48_000)
        XCTAssertEqual(first.bufferSize, 256)
        XCTAssertEqual(first.name, "seqplay")
        XCTAssertNotEqual(second.name, "seqplay", "the server makes the second name unique")
    }

    func testPortsRegisterListAndConnectToPhysicalPlayback() throws {
        let client = try JACKClient(name: "ports", serverName: server.name)
        let left = try client.registerAudioPort(named: "out_L", direction: .output)
        let midi = try client.registerMIDIPort(named: "midi_in", direction: .input)
        try client.activate()
        XCTAssertEqual(left.name, "ports:out_L")
        let playback = client.ports(type: .audio, direction: .input, physicalOnly: true)
        XCTAssertEqual(playback, ["system:playback_1", "system:playback_2"])
        XCTAssertEqual(client.ports(matching: "^ports:", type: .midi), [midi.name])
        try client.connect(left.name, to: playback[0])
        try client.connect(left.name, to: playback[0])  // already connected: fine
        try waitFor { left.connections == ["system:playback_1"] }
        let listed = try JACKTools.run("jack_lsp", ["-c", "ports:out_L"], environment: server.environment).output
        XCTAssertTrue(listed.contains("system:playback_1"), listed)
        XCTAssertThrowsError(try client.connect(left.name, to: "system:no_such_port"))
        try client.disconnect(left.name, from: playback[0])
        try waitFor { left.connections.isEmpty }
        XCTAssertGreaterThanOrEqual(left.latencyRange(.playback).minimum, 0)
    }

    func testAudioAndMIDIPassBetweenClientsAtTheirFramesWithoutAllocating() throws {
        let sender = try JACKClient(name: "sender", serverName: server.name)
        let receiver = try JACKClient(name: "receiver", serverName: server.name)
        let source = Source(audio: try sender.registerAudioPort(named: "out", direction: .output),
                            midi: try sender.registerMIDIPort(named: "midi_out", direction: .output))
        let sink = Sink(audio: try receiver.registerAudioPort(named: "in", direction: .input),
                        midi: try receiver.registerMIDIPort(named: "midi_in", direction: .input))
        try sender.setProcessHandler(source)
        try receiver.setProcessHandler(sink)
        try sender.activate()
        try receiver.activate()
        try sender.connect(source.audio.name, to: sink.audio.name)
        try sender.connect(source.midi.name, to: sink.midi.name)
        let deadline = Date().addingTimeInterval(5)
        while sink.cycles.load(ordering: .acquiring) < 20 && Date() < deadline { usleep(10_000) }
        sender.deactivate()
        receiver.deactivate()
        XCTAssertGreaterThanOrEqual(sink.cycles.load(ordering: .acquiring), 20)
        XCTAssertEqual(sink.frames.load(ordering: .relaxed), 256)
        XCTAssertGreaterThan(sink.matchingAudioCycles.load(ordering: .relaxed), 10, "the receiver reads the sender's ramp")
        XCTAssertGreaterThan(sink.matchingMIDICycles.load(ordering: .relaxed), 10, "note on at frame 17, off at 200")
        XCTAssertEqual(sink.allocations.load(ordering: .relaxed), 0, "the process callbacks allocate")
        XCTAssertEqual(source.allocations.load(ordering: .relaxed), 0, "the process callbacks allocate")
    }

    func testTransportFollowsJackTransportAndTheTimebaseMasterIsSeenByOthers() throws {
        let client = try JACKClient(name: "transport", serverName: server.name)
        try client.activate()
        try JACKTools.run("jack_transport", [], environment: server.environment, input: "locate 96000\nplay\n")
        try waitFor { client.transportQuery().state == .rolling }
        XCTAssertGreaterThanOrEqual(client.transportQuery().position.frame, 96_000)
        try JACKTools.run("jack_transport", [], environment: server.environment, input: "stop\n")
        try waitFor { client.transportQuery().state == .stopped }

        try client.becomeTimebaseMaster(BarBeatMaster(sampleRate: server.sampleRate))
        try client.transportLocate(frame: 96_000)
        try waitFor { client.transportQuery().position.frame == 96_000 && client.transportQuery().position.bar == 2 }
        let position = client.transportQuery().position
        XCTAssertTrue(position.hasBarBeatTick)
        XCTAssertEqual(position.frame, 96_000)
        XCTAssertEqual(position.beat, 1, "96000 frames at 120 bpm in 4/4 is bar 2 beat 1")
        XCTAssertEqual(position.beatsPerMinute, 120)
        client.transportStart()
        try waitFor { client.transportQuery().state == .rolling }
        client.transportStop()
        try waitFor { client.transportQuery().state == .stopped }
        XCTAssertThrowsError(try JACKClient(name: "other", serverName: server.name)
            .becomeTimebaseMaster(BarBeatMaster(sampleRate: server.sampleRate), conditional: true)) {
            XCTAssertEqual($0 as? JACKError, .timebaseMasterTaken)
        }
    }

    func testFreewheelAndShutdownAreReported() throws {
        let client = try JACKClient(name: "watcher", serverName: server.name)
        let freewheeling = ManagedAtomic(0)
        let shutDown = ManagedAtomic(false)
        try client.onFreewheel { freewheeling.wrappingIncrement(by: $0 ? 1 : 100, ordering: .relaxed) }
        client.onShutdown { _ in shutDown.store(true, ordering: .relaxed) }
        try client.activate()
        try client.setFreewheel(true)
        try waitFor { freewheeling.load(ordering: .relaxed) == 1 }
        try client.setFreewheel(false)
        try waitFor { freewheeling.load(ordering: .relaxed) == 101 }
        server.kill()
        try waitFor(seconds: 2) { shutDown.load(ordering: .relaxed) }
    }

    private func waitFor(seconds: Double = 5, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return XCTFail("condition not met within \(seconds) s") }
            usleep(5_000)
        }
    }
}

/// What the two process handlers below share: an audio port and a MIDI port.
private class AudioAndMIDIPorts: @unchecked Sendable {
    let audio: JACKAudioPort
    let midi: JACKMIDIPort

    init(audio: JACKAudioPort, midi: JACKMIDIPort) {
        self.audio = audio
        self.midi = midi
    }
}

/// Writes a ramp (sample i = i / 1000) and a note on at frame 17, note off at frame 200, each cycle.
private final class Source: AudioAndMIDIPorts, JACKProcessHandler {
    let allocations = ManagedAtomic(0)
    private var noteOn: [UInt8] = [0x90, 60, 100]
    private var noteOff: [UInt8] = [0x80, 60, 0]
    private var cycles = 0

    func process(frameCount: Int) -> Bool {
        seqplay_alloc_count_begin()
        let samples = audio.buffer(frameCount: frameCount)
        for i in samples.indices { samples[i] = Float(i) / 1000 }
        let events = midi.outputBuffer(frameCount: frameCount)
        noteOn.withUnsafeBufferPointer { _ = events.write($0, atFrame: 17) }
        noteOff.withUnsafeBufferPointer { _ = events.write($0, atFrame: 200) }
        let counted = seqplay_alloc_count_end().allocations
        cycles += 1
        if cycles > 3 { allocations.wrappingIncrement(by: counted, ordering: .relaxed) }
        return true
    }
}

/// Checks each cycle that the ramp and the two MIDI events arrived as sent.
private final class Sink: AudioAndMIDIPorts, JACKProcessHandler {
    let cycles = ManagedAtomic(0)
    let frames = ManagedAtomic(0)
    let matchingAudioCycles = ManagedAtomic(0)
    let matchingMIDICycles = ManagedAtomic(0)
    let allocations = ManagedAtomic(0)

    func process(frameCount: Int) -> Bool {
        seqplay_alloc_count_begin()
        let samples = audio.buffer(frameCount: frameCount)
        var rampMatches = true
        for index in samples.indices where samples[index] != Float(index) / 1000 { rampMatches = false }
        if rampMatches { matchingAudioCycles.wrappingIncrement(ordering: .relaxed) }
        let events = midi.events(frameCount: frameCount)
        if events.count == 2, events[0].frame == 17, events[1].frame == 200, events[0].bytes.count == 3,
           events[0].bytes[0] == 0x90, events[0].bytes[2] == 100, events[1].bytes[0] == 0x80 {
            matchingMIDICycles.wrappingIncrement(ordering: .relaxed)
        }
        frames.store(frameCount, ordering: .relaxed)
        let counted = seqplay_alloc_count_end().allocations
        // The first cycles may allocate once (lazy runtime metadata); the steady state must not.
        if cycles.wrappingIncrementThenLoad(ordering: .releasing) > 3 {
            allocations.wrappingIncrement(by: counted, ordering: .relaxed)
        }
        return true
    }
}

/// A timebase master at 120 bpm in 4/4 with 1920 ticks per beat.
private final class BarBeatMaster: JACKTimebaseHandler, @unchecked Sendable {
    /// The server's rate, for a position that comes without one.
    private let sampleRate: Int

    init(sampleRate: Int) { self.sampleRate = sampleRate }

    func updatePosition(_ position: inout JACKPosition, state: JACKTransportState, frameCount: Int, isNewPosition: Bool) {
        // The server may hand over a position with frame rate 0: dividing by it made the beat count
        // infinite, and Int(_:) of it trapped the whole test process. The server's own rate stands in; a
        // count that is still not a finite number of beats claims no bar:beat:tick rather than trap.
        let rate = position.frameRate > 0 ? position.frameRate : sampleRate
        let beats = Double(position.frame) / Double(rate) * 2
        guard rate > 0, beats.isFinite, beats >= 0, beats < Double(Int32.max) else {
            position.hasBarBeatTick = false
            return
        }
        position.hasBarBeatTick = true
        position.beatsPerMinute = 120
        position.beatsPerBar = 4
        position.beatType = 4
        position.ticksPerBeat = 1920
        position.bar = Int(beats / 4) + 1
        position.beat = Int(beats.truncatingRemainder(dividingBy: 4)) + 1
        position.tick = Int((beats - beats.rounded(.down)) * 1920)
        position.barStartTick = Double(position.bar - 1) * 4 * 1920
    }
}
