import AllocationCounter
import Atomics
import AudioFiles
import AudioGraph
import Effects
import Foundation
import LV2
import MIDIFile
import Rendering
import TestSupport
import XCTest

/// Real-time playback through `SongPlayback` on a `NullOutput` (the clock-paced output of machines
/// without sound; the ALSA loopback test in AudioOutputTests plays the same path to a real device).
final class PlaybackTests: RenderTestCase {
    private var shippedSong: MusicSequence {
        get throws { try MIDIFileReader.read(contentsOf: song).sequence }
    }

    private let everyEffect = "eq:lowshelf,120,+3;reverb:large-hall,wet=30;delay:250,40,8000,20;distortion:overdrive,3,10;"
        + "compressor:-18,3;limiter"

    /// A real-time output pulls period-sized blocks; the offline render pulls 512 frames. The player
    /// runs inside the render cycle at 64-frame synthesizer blocks, so the audio is the same, bit for bit,
    /// whatever the period, through every effect.
    func testPeriodSizedBlocksRenderTheSameAudioAsTheOfflineRender() throws {
        var options = RenderOptions()
        options.effects = try EffectChainSpec(parsing: everyEffect)
        options.song.end = .seconds(3)
        options.tail = .fixed(seconds: 0.5)
        let offline = try SongRenderer(sequence: shippedSong, soundFontPaths: [Self.generalMIDIFont], options: options)
        var expected: [Float] = []
        while let block = offline.renderNextBlock() { expected += Array(block[0]) }

        for period in [128, 100, 1024] {
            options.blockFrames = period
            let live = try SongRenderer(sequence: shippedSong, soundFontPaths: [Self.generalMIDIFont], options: options)
            var rendered: [Float] = []
            while rendered.count < expected.count, let block = live.renderBlock(frameCount: period) {
                rendered += Array(block[0])
            }
            XCTAssertTrue(live.isFinished, "period \(period): the song and tail were rendered")
            XCTAssertEqual(Array(rendered.prefix(expected.count)), expected, "period \(period)")
        }
    }

    func testPlaysToTheEndPausesAndSeeksOnANullOutput() throws {
        var options = RenderOptions()
        options.blockFrames = 256
        options.tail = .fixed(seconds: 0.2)
        let playback = try SongPlayback(renderer: SongRenderer(sequence: shippedSong, soundFontPaths: [Self.generalMIDIFont], options: options),
                                        output: NullOutput(periodFrames: 256))
        try playback.start()
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(playback.positionSeconds, 0.5, accuracy: 0.2)

        XCTAssertTrue(playback.seek(bySeconds: 60))
        XCTAssertEqual(playback.positionSeconds, 60.5, accuracy: 0.2)
        playback.pause()
        Thread.sleep(forTimeInterval: 0.1)
        let pausedAt = playback.positionSeconds
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(playback.positionSeconds, pausedAt, "no time passes while paused")
        XCTAssertTrue(playback.seek(bySeconds: -5), "seeking while paused")
        XCTAssertEqual(playback.positionSeconds, pausedAt - 5, accuracy: 0.01)
        XCTAssertTrue(playback.isPaused, "still paused after the seek")
        playback.resume()

        XCTAssertTrue(playback.seek(bySeconds: 1_000), "past the end: clamped to the end")
        let deadline = Date().addingTimeInterval(3)
        while !playback.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertTrue(playback.isFinished, "the tail (0.2 s) played out after the end")
        XCTAssertEqual(playback.positionSeconds, playback.durationSeconds, accuracy: 0.3)
        XCTAssertFalse(playback.hasEnded, "the null output never fails")
        XCTAssertEqual(playback.stop(draining: true), .stopped)
    }

    /// ≥ 10 s of steady-state real-time playback with every effect (FluidSynth's own reverb and chorus
    /// too), the varispeed and a modify tap, with pauses and seeks from the control thread meanwhile:
    /// no allocation on the render thread.
    func testTheRenderThreadDoesNotAllocateWithEveryEffectAndAModifyTap() throws {
        var options = RenderOptions()
        options.blockFrames = 256
        options.effects = try EffectChainSpec(parsing: everyEffect + ";varispeed:1.1")
        let renderer = try SongRenderer(sequence: shippedSong, soundFontPaths: [Self.generalMIDIFont], options: options)
        let halfGain = HalfGainTap()
        let window = AllocationWindowTap()
        renderer.engine.stop()
        renderer.sampler.installTap(halfGain, at: .output(bus: 0))
        renderer.engine.mainMixerNode.installTap(window, at: .output(bus: 0))
        try renderer.engine.start()
        let playback = try SongPlayback(renderer: renderer, output: NullOutput(periodFrames: 256))
        try playback.start()
        Thread.sleep(forTimeInterval: 0.5)
        window.isCounting.store(true, ordering: .relaxed)
        for step in 0..<28 {
            Thread.sleep(forTimeInterval: 0.5)
            if step % 4 == 1 { playback.pause() }
            if step % 4 == 2 { playback.resume() }
            if step % 4 == 3 { XCTAssertTrue(playback.seek(bySeconds: step % 8 == 3 ? 5 : -5)) }
        }
        playback.resume()
        window.isCounting.store(false, ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.1)
        playback.stop(draining: false)
        XCTAssertGreaterThan(halfGain.cycles, 0, "the modify tap ran")
        XCTAssertGreaterThanOrEqual(window.countedSeconds, 10, "counted over 10 s of rendering")
        print("render thread allocations over \(window.countedSeconds) s of rendered audio: \(window.allocations), frees \(window.frees)")
        XCTAssertEqual(window.allocations, 0)
    }

    // MARK: The command line

    func testPlaysToTheNullDeviceInRealTimeWithoutAStatusLineOffATerminal() throws {
        let started = Date()
        let run = try seqplay([song, "--sf2", Self.generalMIDIFont, "--device", "null", "--end", "1.5", "--tail", "0.5"])
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2, "played at the pace of the audio")
        XCTAssertEqual(run.standardError, "", "no status line when stderr is not a terminal")

        let verbose = try seqplay([song, "--sf2", Self.generalMIDIFont, "--device", "null", "--end", "0.5", "--tail", "0", "-v", "--period", "128"])
        XCTAssertEqual(verbose.status, 0, verbose.standardError)
        XCTAssertEqual(verbose.standardError.components(separatedBy: "render thread:").count, 2, "said once: \(verbose.standardError)")
        XCTAssertTrue(verbose.standardError.contains("period 128 frames"), verbose.standardError)
        XCTAssertTrue(verbose.standardError.contains("xruns: 0"), verbose.standardError)
    }

    func testCtrlCEndsPlaybackWithStatus130() throws {
        // Interrupted once it plays (-v says so: "render thread: …"), not while it still loads on a busy host.
        let status = try interrupt([song, "--sf2", Self.clickFont, "--device", "null", "-v"]) { $0.standardErrorText.contains("render thread:") }
        XCTAssertEqual(status, 130)
    }

    func testCtrlCDuringRenderingLeavesNoFile() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("long.wav").path
        // Interrupted once it writes (its temporary file beside the output exists).
        let status = try interrupt([song, "--sf2", Self.generalMIDIFont, "-o", path, "--loop", "50",
                                    "--fx", "reverb:cathedral"]) { _ in
            !((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty
        }
        XCTAssertEqual(status, 130)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "no file, no hidden temporary file")
    }

    func testTheEffectChainAppliesToRendering() throws {
        let directory = try temporaryDirectory()
        let plain = directory.appendingPathComponent("plain.wav").path
        let fast = directory.appendingPathComponent("fast.wav").path
        let common = [song, "--sf2", Self.clickFont, "--end", "4", "--tail", "0", "--no-reverb", "--no-chorus"]
        XCTAssertEqual(try seqplay(common + ["-o", plain]).status, 0)
        let run = try seqplay(common + ["-o", fast, "--fx", "limiter:-6;varispeed:2"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let plainAudio = try AudioFileReader(path: plain).readAll()
        let fastAudio = try AudioFileReader(path: fast).readAll()
        XCTAssertEqual(fastAudio[0].count, (plainAudio[0].count + 1) / 2, "twice as fast: half as long")
        let ceiling = Float(pow(10, -6.0 / 20))
        XCTAssertLessThanOrEqual(fastAudio[0].map(abs).max() ?? 1, ceiling + 0.01, "the limiter's ceiling holds")

        let bad = try seqplay(common + ["-o", plain, "--fx", "reverb:huge-hall"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.standardError.contains("huge-hall"), bad.standardError)
    }

    /// Runs seqplay, sends it SIGINT after `seconds`, and returns its exit status.
    /// Runs seqplay with `arguments`, sends SIGINT once `ready` says it is at work (within 60 s on a loaded
    /// host; the status of a run killed by the signal before its handler existed would be the signal's, 2,
    /// which is not what these tests are about), and returns its exit status.
    private func interrupt(_ arguments: [String], once ready: (ChildProcess) -> Bool) throws -> Int32 {
        let process = try ChildProcess(seqplayBinary, arguments, standardOutput: .null, standardError: .capture)
        let end = Date().addingTimeInterval(60)
        while process.isRunning, !ready(process), Date() < end { usleep(20_000) }
        XCTAssertTrue(ready(process), "at work within 60 s: \(process.standardErrorText)")
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(process.isRunning, "still running when interrupted")
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A modify tap: halves the audio in place.
private final class HalfGainTap: ProcessingTap, @unchecked Sendable {
    private(set) var cycles = 0

    func process(_ buffer: AudioBuffer, context: RenderContext) {
        for channel in 0..<buffer.channelCount {
            let samples = buffer[channel]
            for index in 0..<buffer.frameLength { samples[index] *= 0.5 }
        }
        cycles += 1
    }
}

/// Counts the render thread's allocations from the first cycle after `isCounting` turns on to the
/// first cycle after it turns off: everything the thread does in between (player, sampler, effects,
/// taps, varispeed, output) is inside the window.
private final class AllocationWindowTap: ProcessingTap, @unchecked Sendable {
    let isCounting = ManagedAtomic(false)
    private var counting = false
    private var countedFrames = 0
    private var sampleRate = 44_100.0
    private(set) var allocations = -1
    private(set) var frees = -1

    var countedSeconds: Double { Double(countedFrames) / sampleRate }

    func prepare(format: AudioFormat, maximumFrameCount: Int) throws { sampleRate = format.sampleRate }

    func process(_ buffer: AudioBuffer, context: RenderContext) {
        let wanted = isCounting.load(ordering: .relaxed)
        if wanted && !counting {
            counting = true
            seqplay_alloc_count_begin()
        } else if !wanted && counting {
            counting = false
            let counts = seqplay_alloc_count_end()
            allocations = counts.allocations
            frees = counts.frees
        }
        if counting { countedFrames += buffer.frameLength }
    }
}
