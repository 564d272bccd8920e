import Foundation
import JACKTestSupport
import RenderTestSupport
import TestSupport
import XCTest

/// `seqplay live -a jack` taking MIDI at midi_in from a test client, as a user runs it; and the JACK
/// MIDI flags refused where they do not apply.
final class JACKMIDICommandLineTests: XCTestCase {
    override func setUpWithError() throws {
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
    }

    func testLiveThroughJACKPlaysWhatArrivesAtMidiInAtItsFrames() throws {
        let server = try JACKTestServer(blockFrames: 512)
        let notes: [Int64] = (0..<8).map { index in 4_800 + Int64(index) * 9_000 + Int64(index * 37 % 64) }
        var schedule: [(offset: Int64, bytes: [UInt8])] = []
        for frame in notes { schedule += [(frame, [0x90, 64, 110]), (frame + 2_000, [0x80, 64, 0])] }
        let sender = try JACKTestMIDISender(name: "keys", serverName: server.name, schedule: schedule)
        let recorder = try JACKTestRecorder(name: "rec", serverName: server.name, capacity: 48_000 * 8)
        let process = try JACKTools.launch(seqplayURL, ["live", "-a", "jack", "--jack-connect", "^rec:", "--jack-midi-connect", "^keys:",
                                                        "--sf2", "SoundFonts/click.sf2", "--no-reverb", "--no-chorus", "--duration", "3"],
                                           environment: server.environment)
        XCTAssertTrue(try JACKTools.waitForConnection(from: "keys:out", to: "seqplay:midi_in", environment: server.environment),
                      "seqplay:midi_in was not connected from keys:out")
        usleep(200_000)  // the audio ports are connected and rendering has started
        sender.arm()
        process.waitUntilExit()
        let message = process.standardErrorText
        XCTAssertEqual(process.terminationStatus, 0, message)
        XCTAssertTrue(message.contains("JACK MIDI input seqplay:midi_in"), message)
        XCTAssertTrue(sender.isDone)
        let onsets = OnsetTiming.onsets(in: recorder.samples(channel: 0)).map { recorder.firstFrameTime + Int64($0) }
        let errorsInSamples = zip(onsets, notes.map { sender.baseFrameTime + $0 }).map { $0 - $1 }
        // What seqplay controls: every note on the sampler's 64-sample grid at its frame, all in the same cycle relative to
        // when they were sent. Which cycle the recorder hears seqplay's output in is the server's: on a loaded host the
        // dummy server has handed it over one cycle later for a whole run (a CI run: all 8 notes +512, on the same frames).
        let cycles = ((errorsInSamples.first ?? 0) + 256).quotientAndRemainder(dividingBy: 512).quotient
        print("seqplay live -a jack, block 512: onset − sent frame = \(errorsInSamples) samples (the recorder \(cycles) cycle(s) behind)")
        XCTAssertEqual(onsets.count, notes.count)
        XCTAssertTrue((0...1).contains(cycles), "\(errorsInSamples)")
        XCTAssertTrue(errorsInSamples.allSatisfy { abs($0 - Int64(cycles) * 512) < 64 }, "\(errorsInSamples)")
    }

    func testJACKMIDIFlagsAreRefusedWhereTheyDoNotApply() throws {
        let refused = [
            ["Songs/bach-prelude-c.mid", "--jack-midi-out"],
            ["Songs/bach-prelude-c.mid", "-a", "jack", "--jack-midi-connect", "x"],
            ["Songs/bach-prelude-c.mid", "-a", "jack", "--jack-midi-out", "-o", "/tmp/seqplay-never.wav"],
            ["live", "-a", "jack", "--jack-midi-out"],
            ["serve", "--jack-midi-connect", "x", "--network"],
        ]
        for arguments in refused {
            let process = try JACKTools.launch(seqplayURL, arguments, environment: ProcessInfo.processInfo.environment)
            process.waitUntilExit()
            let message = process.standardErrorText
            XCTAssertEqual(process.terminationStatus, 64, "\(arguments): \(message)")
            XCTAssertTrue(message.contains("--jack-midi"), "\(arguments): \(message)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/seqplay-never.wav"))
    }

    private var seqplayURL: URL { seqplayBinary }
}
