import AudioFiles
import Foundation
import LiveSampler
import LV2
import NetworkMIDI
import Sampler
import XCTest

/// A live host with an LV2 instrument: a network peer (a keyboard) plays it on its channel, the other
/// channels stay on the SoundFont sampler, and a note the peer held when it left is released on the plugin.
final class LV2LiveTests: XCTestCase {
    func testANetworkPeerPlaysAnLV2InstrumentAndItsHeldNoteIsReleasedWhenItLeaves() throws {
        let jx10 = "http://drobilla.net/plugins/mda/JX10"
        try TestPlugins.require(jx10)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lv2-live-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("heard.wav").path
        var configuration = LiveSamplerConfiguration(soundFonts: [TestPlugins.font], output: .recording(path: path, sampleRate: 48_000))
        var network = NetworkMIDISession.Configuration()
        network.name = "lv2 live test"
        network.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
        configuration.network = network
        configuration.networkPeersAsALSAPorts = false
        configuration.instruments = [LV2InstrumentAssignment(channels: [0], settings: try LV2PluginSettings(
            uri: jx10, values: [LV2ControlValue(symbol: "env_rel", value: 0.2)], role: .instrument))]
        let session = try LiveSamplerSession(configuration)
        XCTAssertEqual(session.instruments.count, 1)
        try session.start()
        let peer = try NetworkMIDISession(configuration: {
            var keyboard = NetworkMIDISession.Configuration()
            keyboard.name = "keyboard"
            keyboard.listenAddress = try NetworkMIDIAddress.resolve("127.0.0.1:0")
            return keyboard
        }(), deliveringTo: nil)
        peer.connect(to: session.network!.session.controlAddress)
        XCTAssertTrue(peer.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 15))
        let startedAt = Double(session.output.sampleTime) / 48_000
        peer.send([.noteOn(channel: 0, note: 57, velocity: 110)])
        Thread.sleep(forTimeInterval: 1.0)
        let leftAt = Double(session.output.sampleTime) / 48_000
        peer.stop()  // without a note-off: the session releases the note, on the plugin
        Thread.sleep(forTimeInterval: 1.5)
        let summary = session.stop()
        XCTAssertNil(summary.failure)
        let reader = try AudioFileReader(path: path)
        let left = try reader.read(maxFrames: Int(reader.frameCount))[0]
        func level(from start: Double, to end: Double) -> Double {
            let range = max(0, Int(start * 48_000))..<min(left.count, Int(end * 48_000))
            guard !range.isEmpty else { return 0 }
            return (range.reduce(0.0) { $0 + Double(left[$1] * left[$1]) } / Double(range.count)).squareRoot()
        }
        let held = level(from: startedAt + 0.3, to: leftAt)
        let after = level(from: leftAt + 1.0, to: Double(left.count) / 48_000)
        print(String(format: "JX10 held: RMS %.4f; 1 s after the peer left: %.5f", held, after))
        XCTAssertGreaterThan(held, 0.01, "the peer's note sounds on the LV2 instrument")
        XCTAssertLessThan(after, held / 100, "the note was released on the plugin when the peer left")
    }
}
