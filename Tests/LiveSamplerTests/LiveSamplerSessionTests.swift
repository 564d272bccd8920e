import AudioFiles
import Foundation
import LiveSampler
import MIDICore
import NetworkMIDI
import XCTest

/// `LiveSamplerSession` with a network producer, on the system clock, recording to a file: no sound
/// card and no sequencer needed, so it runs everywhere. A real network peer on loopback plays.
final class LiveSamplerSessionTests: XCTestCase {
    private static let font = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../SoundFonts/seqplay-gm.sf2").standardized.path

    /// RMS of `samples` from `start` to `end` seconds at 48 kHz.
    private func level(_ samples: [Float], from start: Double, to end: Double) -> Double {
        let range = Int(start * 48_000)..<min(Int(end * 48_000), samples.count)
        guard !range.isEmpty else { return 0 }
        return (range.reduce(0.0) { $0 + Double(samples[$1] * samples[$1]) } / Double(range.count)).squareRoot()
    }

    func testANetworkPeerPlaysIntoTheRecordingAndItsHeldNoteIsReleasedWhenItLeaves() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-session-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("heard.wav").path
        var configuration = LiveSamplerConfiguration(soundFonts: [Self.font], output: .recording(path: path, sampleRate: 48_000))
        var network = NetworkMIDISession.Configuration()
        network.name = "live session test"
        network.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        configuration.network = network
        configuration.networkPeersAsALSAPorts = false
        let session = try LiveSamplerSession(configuration)
        try session.start()
        var peerConfiguration = NetworkMIDISession.Configuration()
        peerConfiguration.name = "keyboard"
        peerConfiguration.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        let peer = try NetworkMIDISession(configuration: peerConfiguration, deliveringTo: nil)
        peer.connect(to: session.network!.session.controlAddress)
        XCTAssertTrue(peer.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 15))
        let startedAt = Double(session.output.sampleTime) / 48_000
        // A church organ held down: it sounds until released.
        peer.send([.programChange(channel: 0, program: 19), .noteOn(channel: 0, note: 67, velocity: 110)])
        Thread.sleep(forTimeInterval: 1.0)
        let leftAt = Double(session.output.sampleTime) / 48_000
        peer.stop()  // BY, without a note-off: the session must release the note
        Thread.sleep(forTimeInterval: 1.5)
        let summary = session.stop()
        XCTAssertNil(summary.failure)
        XCTAssertEqual(summary.droppedMessages, 0)
        let recording = try XCTUnwrap(summary.recording)
        XCTAssertGreaterThan(recording.framesWritten, 48_000 * 2)
        let reader = try AudioFileReader(path: path)
        let left = try reader.read(maxFrames: Int(reader.frameCount))[0]
        let held = level(left, from: startedAt + 0.3, to: leftAt)
        let after = level(left, from: leftAt + 0.8, to: Double(left.count) / 48_000)
        print(String(format: "organ held: RMS %.4f; 0.8 s after the peer left: %.5f; late events %d", held, after, summary.lateEvents))
        XCTAssertGreaterThan(held, 0.01, "the peer's note sounds")
        XCTAssertLessThan(after, held / 100, "the note was released when the peer left")
    }
}
