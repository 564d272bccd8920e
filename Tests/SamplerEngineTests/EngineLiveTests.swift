import AudioFiles
import Foundation
import TestSupport
import XCTest

/// `seqplay serve --engine seqplay`: live input (a real RTP-MIDI peer, `seqplay --network-connect`) played by
/// seqplay's own engine, recorded with `-o`, sounds as libfluidsynth plays it. (A live source has no next event
/// time, `Int64.min`: the engine's render took it for a sample time and trapped on the first block.)
final class EngineLiveTests: XCTestCase {
    static let font = SamplerEngineTests.shippedFont

    /// What `serve --engine ENGINE -o` recorded of a chord a peer held for a second, as the RMS of its loudest
    /// 100 ms (one channel).
    func servedChordLevel(engine: String, scratch: ScratchDirectory) throws -> Float {
        // Format 0, 96 ticks a beat at 120 BPM: a C major chord on the piano, held one second.
        let on: [UInt8] = [0x00, 0x90, 60, 100, 0x00, 0x90, 64, 100, 0x00, 0x90, 67, 100]
        let off: [UInt8] = [0x81, 0x40, 0x80, 60, 0, 0x00, 0x80, 64, 0, 0x00, 0x80, 67, 0]
        let track = on + off + [0x00, 0xFF, 0x2F, 0x00]
        let song: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, UInt8(track.count)] + track
        let songPath = scratch.path("chord-\(engine).mid"), heard = scratch.path("heard-\(engine).wav")
        try Data(song).write(to: URL(fileURLWithPath: songPath))
        let network = freePort(Int32(SOCK_DGRAM.rawValue))
        let serve = try ChildProcess(seqplayBinary.path, ["serve", "--network", "--listen", "127.0.0.1:\(network)", "--sf2", Self.font,
                                                          "--engine", engine, "-o", heard, "--duration", "30", "--no-state"],
                                     standardInput: .null, standardOutput: .capture, standardError: .capture)
        defer { if serve.isRunning { serve.signal(SIGKILL); serve.waitUntilExit() } }
        let player = try runSeqplay([songPath, "--sf2", Self.font, "--network-connect", "127.0.0.1:\(network)", "--no-audio"], timeLimit: 30)
        XCTAssertEqual(player.status, 0, player.standardError)
        usleep(300_000)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        let samples = try AudioFileReader(path: heard).readAll()[0]
        let window = 4800
        var loudest: Float = 0
        for start in stride(from: 0, to: max(samples.count - window, 0), by: window / 2) {
            let rms = (samples[start..<(start + window)].reduce(0) { $0 + $1 * $1 } / Float(window)).squareRoot()
            loudest = max(loudest, rms)
        }
        print("serve --engine \(engine): \(samples.count) frames recorded, loudest 100 ms at \(20 * log10(max(loudest, 1e-9))) dBFS")
        return loudest
    }

    func testServePlaysANetworkPeerThroughSeqplaysEngineAsLibfluidsynthDoes() throws {
        let scratch = try ScratchDirectory(prefix: "engine-live")
        defer { scratch.remove() }
        let ours = try servedChordLevel(engine: "seqplay", scratch: scratch)
        let reference = try servedChordLevel(engine: "fluidsynth", scratch: scratch)
        XCTAssertGreaterThan(reference, 0.01, "libfluidsynth's recording holds the chord")
        XCTAssertGreaterThan(ours, 0.01, "seqplay's engine recorded the chord")
        XCTAssertEqual(20 * log10(ours / reference), 0, accuracy: 1.5, "the chord's level differs between the engines")
    }
}
