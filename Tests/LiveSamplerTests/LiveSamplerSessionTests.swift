import AudioFiles
import AudioGraph
import Foundation
import Sessions
import LV2
import MIDICore
import NetworkMIDI
import Sampler
import TestSupport
import XCTest

/// `LiveSamplerSession` with a network producer, on the system clock, recording to a file: no sound
/// card and no sequencer needed, so it runs everywhere. A real network peer on loopback plays, on the
/// SoundFont sampler and on an LV2 instrument.
final class LiveSamplerSessionTests: XCTestCase {
    private static let font = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../SoundFonts/seqplay-gm.sf2").standardized.path

    /// What a session recording to a file heard of a network peer (a keyboard) that sent some messages,
    /// held them for a second and left without a note-off.
    private struct PeerThatLeft {
        /// The recording's left channel, at 48 kHz.
        var left: [Float]
        /// When the peer sent its messages and when it left, in seconds of the recording.
        var startedAt: Double, leftAt: Double
        var summary: LiveSamplerSession.Summary

        /// RMS of the left channel from `start` to `end` seconds.
        func level(from start: Double, to end: Double) -> Double {
            let lower = max(0, Int(start * 48_000)), upper = min(Int(end * 48_000), left.count)
            guard lower < upper else { return 0 }  // a recording shorter than the span (a slow, emulated guest)
            let range = lower..<upper
            return (range.reduce(0.0) { $0 + Double(left[$1] * left[$1]) } / Double(range.count)).squareRoot()
        }
    }

    /// Starts a session recording to a scratch file with a network listener (`configure` adds to its
    /// configuration, `beforeStart` sees the session before it starts), connects a keyboard peer that sends `messages`,
    /// and stops the session 1.5 s after the peer left.
    private func peerThatLeaves(sending messages: [MIDIMessage], configure: (inout LiveSamplerConfiguration) throws -> Void = { _ in },
                                beforeStart: (LiveSamplerSession) -> Void = { _ in }) throws -> PeerThatLeft {
        let scratch = try ScratchDirectory(prefix: "live-session")
        defer { scratch.remove() }
        let path = scratch.path("heard.wav")
        var configuration = LiveSamplerConfiguration(soundFonts: [Self.font], output: .recording(path: path, sampleRate: 48_000))
        func loopbackSession(_ name: String) throws -> NetworkMIDISession.Configuration {
            var network = NetworkMIDISession.Configuration()
            network.name = name
            network.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
            return network
        }
        configuration.network = try loopbackSession("live session test")
        configuration.networkPeersAsALSAPorts = false
        try configure(&configuration)
        let session = try LiveSamplerSession(configuration)
        beforeStart(session)
        try session.start()
        let peer = try NetworkMIDISession(configuration: loopbackSession("keyboard"), deliveringTo: nil)
        peer.connect(to: session.network!.session.controlAddress)
        XCTAssertTrue(peer.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 15))
        // The times are the output's when the session has taken each step (a loaded or emulated host may hand it the
        // peer's packets late): the notes received, then the peer gone.
        let network = session.network!.session
        func waitUntil(_ done: () -> Bool) {
            let deadline = Date(timeIntervalSinceNow: 15)
            while !done() && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        }
        peer.send(messages)
        waitUntil { network.statistics.dataPacketsReceived > 0 }
        let startedAt = Double(session.output.sampleTime) / 48_000
        Thread.sleep(forTimeInterval: 1.0)
        peer.stop()  // BY, without a note-off: the session must release the note
        waitUntil { !network.peers.contains { $0.state == .connected } }
        let leftAt = Double(session.output.sampleTime) / 48_000
        Thread.sleep(forTimeInterval: 1.5)
        let summary = session.stop()
        let reader = try AudioFileReader(path: path)
        let left = try reader.read(maxFrames: Int(reader.frameCount))[0]
        return PeerThatLeft(left: left, startedAt: startedAt, leftAt: leftAt, summary: summary)
    }

    /// A recording made while the render lags the clock (a loaded machine; here a tap makes every period
    /// take twice its length, so the null output falls ever further behind the wall clock) still holds
    /// what a peer played just before the stop: the output renders on until every message received is due.
    func testARecordingBehindTheClockHoldsWhatWasPlayedJustBeforeTheStop() throws {
        let scratch = try ScratchDirectory(prefix: "live-session-behind")
        defer { scratch.remove() }
        let path = scratch.path("heard.wav")
        var configuration = LiveSamplerConfiguration(soundFonts: [Self.font], output: .recording(path: path, sampleRate: 48_000))
        var network = NetworkMIDISession.Configuration()
        network.name = "live session test"
        network.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        configuration.network = network
        configuration.networkPeersAsALSAPorts = false
        let session = try LiveSamplerSession(configuration)
        session.engine.mainMixerNode.installTap { _, context in
            let until = DispatchTime.now().uptimeNanoseconds + UInt64(context.frameCount) * 1_000_000_000 / 48_000 * 2
            while DispatchTime.now().uptimeNanoseconds < until {}
        }
        try session.start()
        let started = DispatchTime.now().uptimeNanoseconds
        var keyboard = network
        keyboard.name = "keyboard"
        let peer = try NetworkMIDISession(configuration: keyboard, deliveringTo: nil)
        defer { peer.stop() }
        peer.connect(to: session.network!.session.controlAddress)
        XCTAssertTrue(peer.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 15))
        Thread.sleep(forTimeInterval: 1.5)  // the render falls half of it behind, and more on a loaded host
        peer.send([.programChange(channel: 0, program: 19), .noteOn(channel: 0, note: 67, velocity: 110)])  // an organ, held
        Thread.sleep(forTimeInterval: 0.4)
        let stoppedAt = DispatchTime.now().uptimeNanoseconds
        let behind = Double(stoppedAt - started) / 1e9 - Double(session.output.sampleTime) / 48_000
        let summary = session.stop()
        XCTAssertNil(summary.failure)
        let reader = try AudioFileReader(path: path)
        let left = try reader.read(maxFrames: Int(reader.frameCount))[0]
        let seconds = Double(left.count) / 48_000
        func level(from start: Double, to end: Double) -> Double {
            let range = max(0, Int(start * 48_000))..<min(Int(end * 48_000), left.count)
            return range.isEmpty ? 0 : (range.reduce(0.0) { $0 + Double(left[$1] * left[$1]) } / Double(range.count)).squareRoot()
        }
        let last = level(from: seconds - 0.3, to: seconds - 0.05)
        print(String(format: "render behind the clock by %.2f s at the stop; recording %.2f s for %.2f s played; the organ's level in its last 0.3 s: %.4f",
                     behind, seconds, Double(stoppedAt - started) / 1e9, last))
        XCTAssertGreaterThan(behind, 0.5, "the render lags the clock (else this test shows nothing)")
        XCTAssertGreaterThan(seconds, Double(stoppedAt - started) / 1e9 - 0.05, "the recording reaches the stop")
        XCTAssertGreaterThan(last, 0.01, "the note played before the stop is in the recording")
    }

    func testANetworkPeerPlaysIntoTheRecordingAndItsHeldNoteIsReleasedWhenItLeaves() throws {
        // A church organ held down: it sounds until released.
        let heard = try peerThatLeaves(sending: [.programChange(channel: 0, program: 19), .noteOn(channel: 0, note: 67, velocity: 110)])
        let summary = heard.summary
        XCTAssertNil(summary.failure)
        XCTAssertEqual(summary.droppedMessages, 0)
        let recording = try XCTUnwrap(summary.recording)
        XCTAssertGreaterThan(recording.framesWritten, 48_000 * 2)
        let held = heard.level(from: heard.startedAt + 0.3, to: heard.leftAt)
        let after = heard.level(from: heard.leftAt + 0.8, to: Double(heard.left.count) / 48_000)
        print(String(format: "organ held: RMS %.4f; 0.8 s after the peer left: %.5f; late events %d", held, after, summary.lateEvents))
        XCTAssertGreaterThan(held, 0.01, "the peer's note sounds")
        XCTAssertLessThan(after, held / 100, "the note was released when the peer left")
    }

    /// A live host with an LV2 instrument: the peer plays it on its channel, the other channels stay on the
    /// SoundFont sampler, and a note the peer held when it left is released on the plugin.
    func testANetworkPeerPlaysAnLV2InstrumentAndItsHeldNoteIsReleasedWhenItLeaves() throws {
        let jx10 = "http://drobilla.net/plugins/mda/JX10"
        guard LV2Plugins.plugin(uri: jx10) != nil else { throw XCTSkip("LV2 plugin \(jx10) is not installed") }
        let heard = try peerThatLeaves(sending: [.noteOn(channel: 0, note: 57, velocity: 110)], configure: { configuration in
            configuration.instruments = [LV2InstrumentAssignment(channels: [0], settings: try LV2PluginSettings(
                uri: jx10, values: [LV2ControlValue(symbol: "env_rel", value: 0.2)], role: .instrument))]
        }, beforeStart: { XCTAssertEqual($0.instruments.count, 1) })
        XCTAssertNil(heard.summary.failure)
        let held = heard.level(from: heard.startedAt + 0.3, to: heard.leftAt)
        let after = heard.level(from: heard.leftAt + 1.0, to: Double(heard.left.count) / 48_000)
        print(String(format: "JX10 held: RMS %.4f; 1 s after the peer left: %.5f", held, after))
        XCTAssertGreaterThan(held, 0.01, "the peer's note sounds on the LV2 instrument")
        XCTAssertLessThan(after, held / 100, "the note was released on the plugin when the peer left")
    }
}
