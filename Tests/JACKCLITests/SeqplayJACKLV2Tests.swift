import AudioFiles
import Foundation
import JACKTestSupport
import TestSupport
import XCTest

/// LV2 hosting through JACK (issue 22), against a real server (`jackd -d dummy`): a note arriving at
/// `seqplay:midi_in` plays through an LV2 synth on its own frame (and through seqplay's own SoundFont engine,
/// issue 31), and a song with an LV2 instrument and effect
/// played to JACK and recorded by `jack_rec` equals the offline render.
final class SeqplayJACKLV2Tests: JACKServerTestCase {
    private let piano = "http://drobilla.net/plugins/mda/Piano"
    private let delay = "http://drobilla.net/plugins/mda/Delay"
    override func setUpWithError() throws {
        try super.setUpWithError()
        guard FileManager.default.fileExists(atPath: "/usr/lib/lv2/mda.lv2/manifest.ttl") else {
            throw XCTSkip("mda-lv2 is not installed (Scripts/setup)")
        }
    }

    /// Notes sent to midi_in at frames off any 64-frame grid, played by mda Piano: every onset lies the same
    /// number of frames after its note was sent (the delivery's look-ahead), to the sample; the SoundFont
    /// sampler puts the same notes up to 32 samples off its grid.
    func testLiveNotesAtMidiInPlayThroughAnLV2SynthOnTheirOwnFrames() throws {
        let played = try liveNotesAtMidiIn(["--sf2", "SoundFonts/click.sf2", "--instrument", "1=lv2:\(piano),random_detuning=0"])
        print("seqplay live -a jack --instrument mda Piano, block 256: first note \(played.delay) frames after it was sent; later notes off that by \(played.shifts) samples")
        XCTAssertEqual(played.shifts, Array(repeating: 0, count: played.shifts.count), "every note on its own frame")
    }

    /// The same notes played by seqplay's own SoundFont engine (`--engine seqplay`), which starts a live message on
    /// the frame it is due at (libfluidsynth can only start it on its 64-sample grid).
    func testLiveNotesAtMidiInPlayThroughSeqplaysEngineOnTheirOwnFrames() throws {
        let played = try liveNotesAtMidiIn(["--sf2", "SoundFonts/seqplay-gm.sf2", "--engine", "seqplay"])
        print("seqplay live -a jack --engine seqplay, block 256: first note \(played.delay) frames after it was sent; later notes off that by \(played.shifts) samples")
        XCTAssertEqual(played.shifts, Array(repeating: 0, count: played.shifts.count), "every note on its own frame")
    }

    /// Six notes sent to `seqplay live -a jack ARGUMENTS` at midi_in, at frames off any 64-frame grid (block 256), and
    /// recorded: how many frames after it was sent the first sounds, and how far each later note's onset lies from
    /// that same delay (the first note's waveform matched within 48 samples either way; each must match it).
    private func liveNotesAtMidiIn(_ arguments: [String]) throws -> (delay: Int64, shifts: [Int]) {
        let server = try JACKTestServer(blockFrames: 256)
        let notes: [Int64] = (0..<6).map { 4_800 + Int64($0) * 24_000 + Int64($0 * 37 % 64) }
        var schedule: [(offset: Int64, bytes: [UInt8])] = []
        for frame in notes { schedule += [(frame, [0x90, 60, 100]), (frame + 2_000, [0x80, 60, 0])] }
        let sender = try JACKTestMIDISender(name: "keys", serverName: server.name, schedule: schedule)
        // The recorder runs from before seqplay starts (seconds on a loaded host) to after the notes: 30 s of room.
        let recorder = try JACKTestRecorder(name: "rec", serverName: server.name, capacity: 48_000 * 30)
        // Ended by SIGTERM once the recorder holds the last note's second, not by wall time: on a loaded host the
        // server's cycles lag the clock, and seqplay's start (fonts, the plugin) takes seconds.
        let process = try JACKTools.launch(seqplayURL, ["live", "-a", "jack", "--jack-connect", "^rec:", "--jack-midi-connect", "^keys:",
                                                        "--duration", "120"] + arguments,
                                           environment: server.environment)
        XCTAssertTrue(try JACKTools.waitForConnection(from: "keys:out", to: "seqplay:midi_in", environment: server.environment),
                      "seqplay:midi_in was not connected from keys:out")
        usleep(200_000)
        sender.arm()
        let deadline = Date().addingTimeInterval(60)
        while !(sender.isDone && Int64(recorder.frameCount) > sender.baseFrameTime + notes.last! + 48_000 - recorder.firstFrameTime),
              Date() < deadline, process.isRunning {
            usleep(50_000)
        }
        process.terminate()
        XCTAssertTrue(process.waitUntilExit(timeout: 30))
        XCTAssertEqual(process.exitStatus, 0, process.standardErrorText)
        XCTAssertTrue(sender.isDone)
        let samples = recorder.samples(channel: 0)
        let sent = notes.map { sender.baseFrameTime + $0 - recorder.firstFrameTime }
        // The first note starts in silence: its onset, and how long after it was sent.
        let first = try XCTUnwrap(samples.firstIndex { abs($0) > 1e-4 })
        let delay = Int64(first) - sent[0]
        // Every later note: the waveform of the first, at the same delay after it was sent (to the sample;
        // the tails of earlier notes add a little).
        let reference = samples[first..<first + 1_000]
        let peak = reference.map(abs).max() ?? 0
        var shifts: [Int] = []
        for start in sent.dropFirst().map({ Int($0 + delay) }) {
            guard start + 48 + reference.count <= samples.count else {
                XCTFail("the recording (\(samples.count) frames) ends before the note sent at \(start - Int(delay))")
                continue
            }
            var best = (shift: 0, difference: Float.infinity)
            for shift in -48...48 where start + shift >= 0 && start + shift + reference.count <= samples.count {
                var most: Float = 0
                for (i, value) in reference.enumerated() { most = max(most, abs(samples[start + shift + i] - value)) }
                if most < best.difference { best = (shift, most) }
            }
            shifts.append(best.shift)
            XCTAssertLessThan(best.difference, peak * 0.05, "the note sent at \(start - Int(delay)) sounds as the first")
        }
        XCTAssertGreaterThan(peak, 0.01)
        XCTAssertEqual(shifts.count, notes.count - 1)
        return (delay, shifts)
    }

    /// `seqplay SONG -a jack` with an LV2 instrument and an LV2 effect, recorded by jack_rec, equals the
    /// offline render (correlation ≥ 0.99, as the SoundFont playback test asks).
    func testPlaybackWithLV2InstrumentAndEffectEqualsTheOfflineRender() throws {
        let song = "Songs/bach-prelude-c.mid"
        let lv2 = ["--instrument", "1=lv2:\(piano),random_detuning=0", "--fx", "lv2:\(delay),fx_mix=0.3"]
        let reference = scratch.path("reference.wav")
        let offline = try seqplay([song, "--end", "4", "-r", "48000", "--bit-depth", "float", "-o", reference] + font + lv2, environment: nil)
        XCTAssertEqual(offline.status, 0, offline.errors)
        let expected = try AudioFileReader(path: reference).readAll()
        let server = try JACKTestServer(blockFrames: 256)
        let capture = scratch.path("capture.wav")
        let recorder = try JACKTools.launch(URL(fileURLWithPath: "/usr/bin/jack_rec"),
                                            ["-f", capture, "-d", "8", "-b", "32", "system:capture_1", "system:capture_2"],
                                            environment: server.environment)
        try waitForPort("jackrec:input2", server: server)
        let run = try seqplay([song, "--end", "4", "-a", "jack", "--jack-connect", "^jackrec:"] + font + lv2, environment: server.environment)
        XCTAssertEqual(run.status, 0, run.errors)
        recorder.waitUntilExit()
        let captured = try AudioFileReader(path: capture).readAll()
        let (lag, correlation) = try align(expected, in: captured)
        print("JACK with LV2 piano and delay: capture starts \(lag) frames into jack_rec's file, correlation \(correlation)")
        XCTAssertGreaterThanOrEqual(correlation, 0.99)
    }
}
