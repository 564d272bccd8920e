import AudioFiles
import AudioTestSupport
import Foundation
import JACKTestSupport
import TestSupport
import XCTest

/// `seqplay SONG --audio-driver jack` against a real server (`jackd -d dummy`), recorded by jackd2's
/// `jack_rec`, compared with seqplay's own offline render of the same song at 48 kHz.
final class SeqplayJACKPlaybackTests: JACKServerTestCase {
    private let song = "Songs/beethoven-ode-to-joy.mid"  // 17 tempo changes
    func testPlaybackRecordedByJackRecEqualsTheOfflineRenderAtBlockSizes64_256And1024() throws {
        let reference = scratch.path("reference.wav")
        let offline = try seqplay([song, "--end", "4", "-r", "48000", "--bit-depth", "float", "-o", reference] + font, environment: nil)
        XCTAssertEqual(offline.status, 0, offline.errors)
        let expected = try AudioFileReader(path: reference).readAll()
        for blockFrames in [64, 256, 1024] {
            let server = try JACKTestServer(blockFrames: blockFrames)
            let capture = scratch.path("capture-\(blockFrames).wav")
            let recorder = try JACKTools.launch(URL(fileURLWithPath: "/usr/bin/jack_rec"),
                                                ["-f", capture, "-d", "7", "-b", "32", "system:capture_1", "system:capture_2"],
                                                environment: server.environment)
            try waitForPort("jackrec:input2", server: server)
            let run = try seqplay([song, "--end", "4", "-a", "jack", "--jack-connect", "^jackrec:"] + font, environment: server.environment)
            XCTAssertEqual(run.status, 0, run.errors)
            recorder.waitUntilExit()
            let captured = try AudioFileReader(path: capture).readAll()
            let (lag, correlation) = try align(expected, in: captured)
            print("JACK block \(blockFrames): capture starts \(lag) frames into jack_rec's file, correlation \(correlation)")
            XCTAssertGreaterThanOrEqual(correlation, 0.99, "block size \(blockFrames)")
        }
    }

    func testJackMultiGivesEachChannelItsOwnPairAndThePairsSumToTheMix() throws {
        let server = try JACKTestServer()
        let recorder = try JACKTestRecorder(name: "multi", serverName: server.name, channelCount: 34, capacity: 48_000 * 7)
        let run = try seqplay([song, "--end", "4", "-a", "jack", "--jack-multi", "--jack-connect", "^multi:"] + font,
                              environment: server.environment)
        XCTAssertEqual(run.status, 0, run.errors)
        let recorded = (0..<34).map { recorder.samples(channel: $0) }
        let mix = Array(recorded[0...1])
        // The pairs sum to the mix.
        var worst: Float = 0
        for frame in 0..<recorded[0].count {
            for side in 0..<2 {
                let sum = stride(from: 2 + side, to: 34, by: 2).reduce(Float(0)) { $0 + recorded[$1][frame] }
                worst = max(worst, abs(sum - recorded[side][frame]))
            }
        }
        XCTAssertLessThan(worst, 1e-5, "the channel pairs do not sum to the mix")
        // Each sounding pair is its channel alone: the song rendered offline with only that channel.
        let sounding = (1...16).filter { channel in recorded[2 * channel].contains { $0 != 0 } }
        XCTAssertGreaterThanOrEqual(sounding.count, 3, "the song plays on several channels")
        let full = scratch.path("full.wav")
        XCTAssertEqual(try seqplay([song, "--end", "4", "-r", "48000", "--bit-depth", "float", "-o", full] + font, environment: nil).status, 0)
        let (lag, mixCorrelation) = try align(try AudioFileReader(path: full).readAll(), in: mix)
        XCTAssertGreaterThanOrEqual(mixCorrelation, 0.99)
        for channel in sounding {
            let solo = scratch.path("solo-\(channel).wav")
            XCTAssertEqual(try seqplay([song, "--end", "4", "-r", "48000", "--bit-depth", "float", "--solo-channel", "\(channel)",
                                        "-o", solo] + font, environment: nil).status, 0)
            let value = correlation(try AudioFileReader(path: solo).readAll(), Array(recorded[2 * channel...2 * channel + 1]), lag: lag)
            print("JACK multi: channel \(channel) pair against its solo render: correlation \(value)")
            XCTAssertGreaterThanOrEqual(value, 0.99, "channel \(channel)")
        }
    }

    func testWhenTheServerFreewheelsEveryCycleIsRenderedAndTheSongStaysExact() throws {
        let reference = scratch.path("reference.wav")
        XCTAssertEqual(try seqplay([song, "--end", "4", "-r", "48000", "--bit-depth", "float", "-o", reference] + font, environment: nil).status, 0)
        let server = try JACKTestServer()
        let recorder = try JACKTestRecorder(name: "rec", serverName: server.name, capacity: 48_000 * 40)
        let process = try JACKTools.launch(seqplayURL, [song, "--end", "4", "-a", "jack", "--jack-connect", "^rec:"] + font,
                                           environment: server.environment)
        try waitForPort("seqplay:out_R", server: server)
        try recorder.client.setFreewheel(true)
        process.waitUntilExit()
        try recorder.client.setFreewheel(false)
        let message = process.standardErrorText
        XCTAssertEqual(process.terminationStatus, 0, message)
        let captured = (0..<2).map { recorder.samples(channel: $0) }
        let (lag, correlation) = try align(try AudioFileReader(path: reference).readAll(), in: captured)
        print("JACK freewheel: \(captured[0].count) frames recorded, song at \(lag), correlation \(correlation)")
        XCTAssertGreaterThanOrEqual(correlation, 0.99)
    }

    func testWithoutAServerItSaysHowToStartOneAndExits5() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = "seqplay-no-such-server"
        environment["JACK_NO_START_SERVER"] = "1"
        let run = try seqplay([song, "-a", "jack"] + font, environment: environment)
        XCTAssertEqual(run.status, 5)
        XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
        XCTAssertTrue(run.errors.contains("no JACK server is running") && run.errors.contains("--audio-driver alsa"), run.errors)
    }

    /// JACK's ports appear when the output opens, before the song starts: a SIGTERM at once (a script that
    /// waited for them, then stopped seqplay) ends it through its normal path, never the signal's default
    /// action (exit 143 with no notes off, as it did once in three before the signals were caught first).
    func testASIGTERMAsSoonAsThePortsAppearEndsThroughTheNormalPath() throws {
        let server = try JACKTestServer()
        for (arguments, expected) in [([song, "-a", "jack"], Int32(130)), (["live", "-a", "jack"], 0)] {
            for _ in 0..<3 {
                let process = try JACKTools.launch(seqplayURL, arguments + font, environment: server.environment)
                try waitForPort("seqplay", server: server)
                process.terminate()
                XCTAssertTrue(process.waitUntilExit(timeout: 20), "\(arguments) did not end on SIGTERM")
                XCTAssertEqual(process.exitStatus, expected, "\(arguments): \(process.standardErrorText)")
            }
        }
    }

    func testKillingTheServerMidSongEndsSeqplayWithin2SecondsWithExit5() throws {
        let server = try JACKTestServer()
        let process = try JACKTools.launch(seqplayURL, [song, "-a", "jack"] + font, environment: server.environment)
        try waitForPort("seqplay:out_R", server: server)
        usleep(500_000)
        XCTAssertTrue(process.isRunning)
        let killed = Date()
        server.kill()
        while process.isRunning && Date().timeIntervalSince(killed) < 5 { usleep(10_000) }
        let seconds = Date().timeIntervalSince(killed)
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let message = process.standardErrorText
        print("seqplay ended \(String(format: "%.2f", seconds)) s after jackd was killed: \(message)")
        XCTAssertLessThan(seconds, 2)
        XCTAssertEqual(process.terminationStatus, 5)
        XCTAssertTrue(message.contains("JACK server") && message.contains("shut down"), message)
    }

    func testServeNetworkPlaysThroughJACKWithItsPortsOnThePhysicalPlaybackPorts() throws {
        let server = try JACKTestServer()
        let process = try JACKTools.launch(seqplayURL, ["serve", "--network", "-a", "jack", "--jack-name", "host",
                                                        "--duration", "2", "--no-alsa-ports",
                                                        "--listen", "127.0.0.1:5914"] + font,
                                           environment: server.environment)
        try waitForPort("host:out_R", server: server)
        let listing = try JACKTools.run("jack_lsp", ["-c", "host:"], environment: server.environment).output
        process.waitUntilExit()
        let message = process.standardErrorText
        XCTAssertEqual(process.terminationStatus, 0, message)
        XCTAssertTrue(listing.contains("host:out_L\n   system:playback_1") && listing.contains("host:out_R\n   system:playback_2"), listing)
    }
}
