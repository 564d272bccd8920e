import AllocationCounter
import AudioFiles
import Foundation
import Sampler
import SoundFontFile
import TestSupport
import XCTest

/// Reverb and chorus with `--engine seqplay` (the built binary, and the engine itself) as libfluidsynth 2.3 plays
/// them: a chord sent to both effects (CC 91, CC 93) rendered by both engines sounds alike, its tail (the reverb
/// after the last note-off) decays alike, the room size and level act alike from a flag and from a shell command
/// at run time, CC 91 = 0 keeps a channel dry, the render is the same bytes on any `--threads`, and the render
/// thread allocates nothing with both effects on and changing.
final class EngineEffectsTests: XCTestCase {
    static let rate = SamplerEngineTests.rate
    /// The chord's note-off (ms) and the song's end: the render's tail is the 3 s after it.
    static let noteOffMs = 1700, songEndMs = 1800, tailSeconds = 3

    /// Channel 1 (0-based 0) plays `program`, sends `reverb` and `chorus` (CC 91, CC 93), a C major chord from 0.1 s to `noteOffMs`.
    static func chord(program: UInt8 = 19, reverb: UInt8 = 127, chorus: UInt8 = 127) -> MIDIControlTests.Song {
        var events: [(ms: Int, bytes: [UInt8])] = [(0, [0xC0, program]), (0, [0xB0, 91, reverb]), (0, [0xB0, 93, chorus])]
        for key: UInt8 in [60, 64, 67] { events.append((100, [0x90, key, 100])) }
        for key: UInt8 in [60, 64, 67] { events.append((noteOffMs, [0x80, key, 0])) }
        return .init(events: events, lengthMs: songEndMs)
    }

    /// `song` rendered by `engine` through `seqplay render` with `flags`, as 32-bit float WAV with a 3 s tail: its bytes
    /// and its interleaved samples.
    func render(_ song: MIDIControlTests.Song, font: String = SamplerEngineTests.shippedFont, engine: String, flags: [String] = [],
                threads: Int = 1, scratch: ScratchDirectory) throws -> (samples: [Float], data: Data) {
        let key = flags.joined() + song.events.map { "\($0.ms)\($0.bytes)" }.joined() + "\(song.lengthMs)" + font
        let name = "\(engine)-\(threads)-\(abs(key.hashValue))"
        let songPath = scratch.path("\(name).mid"), output = scratch.path("\(name).wav")
        try MIDIControlTests.midiFile(song).write(to: URL(fileURLWithPath: songPath))
        let run = try runSeqplay(["render", songPath, "--sf2", font, "--engine", engine, "--tail", "\(Self.tailSeconds)", "--bit-depth", "float",
                                  "--threads", "\(threads)", "-o", output] + flags, timeLimit: 300)
        XCTAssertEqual(run.status, 0, run.standardError)
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return (EngineCommandLineTests.floatSamples(ofWAV: data), data)
    }

    /// The 10 ms power envelope in dBFS (left and right averaged), one value a window.
    static func envelope(_ signal: [Float]) -> [Double] {
        let window = rate / 100
        return stride(from: 0, to: signal.count / 2 - window + 1, by: window).map { start in
            var sum = 0.0
            for i in start..<(start + window) { sum += Double(signal[2 * i] * signal[2 * i] + signal[2 * i + 1] * signal[2 * i + 1]) / 2 }
            return 10 * log10(sum / Double(window) + 1e-20)
        }
    }

    /// The tail after the last note-off (from 150 ms after it, past the voices' release) as the reference has it:
    /// its windows down to 45 dB below their start or −100 dBFS.
    static func tailWindows(of reference: [Double]) -> Range<Int> {
        let start = (noteOffMs + 150) / 10
        guard start < reference.count else { return start..<start }
        let floor = max(reference[start] - 45, -100)
        let end = reference[start...].firstIndex { $0 < floor } ?? reference.count
        return start..<end
    }

    /// The least-squares slope of `envelope` over `windows`, in dB per second.
    static func decayRate(_ envelope: [Double], over windows: Range<Int>) -> Double {
        let n = Double(windows.count)
        guard n > 2 else { return 0 }
        let times = windows.map { Double($0) / 100 }, values = windows.map { envelope[$0] }
        let meanTime = times.reduce(0, +) / n, meanValue = values.reduce(0, +) / n
        let covariance = zip(times, values).reduce(0) { $0 + ($1.0 - meanTime) * ($1.1 - meanValue) }
        let variance = times.reduce(0) { $0 + ($1 - meanTime) * ($1 - meanTime) }
        return covariance / variance
    }

    /// Ours against the reference: the whole render's level and 10 ms envelope (`SamplerEngineTests.compare`), and
    /// over the reference's tail the mean absolute envelope difference and both decay rates.
    struct Figures {
        var level: Double, envelope: Double, tailEnvelope: Double, ourDecay: Double, theirDecay: Double
        /// The tail's first half second, its mean level in dBFS.
        var ourTail: Double, theirTail: Double
        var decayRatio: Double { ourDecay / theirDecay }
        var summary: String {
            String(format: "level %+.2f dB, envelope %.2f dB, tail envelope %.2f dB, tail decay %.1f dB/s (fluidsynth %.1f dB/s, ratio %.2f)",
                   level, envelope, tailEnvelope, ourDecay, theirDecay, decayRatio)
        }
    }

    static func figures(ours: [Float], reference: [Float]) -> Figures {
        let frames = min(ours.count, reference.count) / 2
        let c = SamplerEngineTests.compare(ours: ours, reference: reference, start: 0, analysed: frames)
        let ourEnvelope = envelope(ours), theirEnvelope = envelope(reference)
        let tail = tailWindows(of: theirEnvelope).clamped(to: 0..<min(ourEnvelope.count, theirEnvelope.count))
        let tailEnvelope = tail.reduce(0) { $0 + abs(max(ourEnvelope[$1], -120) - theirEnvelope[$1]) } / Double(max(tail.count, 1))
        return Figures(level: c.levelDifference, envelope: c.envelopeDifference, tailEnvelope: tailEnvelope,
                       ourDecay: decayRate(ourEnvelope, over: tail), theirDecay: decayRate(theirEnvelope, over: tail),
                       ourTail: tailLevel(ourEnvelope, tail), theirTail: tailLevel(theirEnvelope, tail))
    }

    static func tailLevel(_ envelope: [Double], _ tail: Range<Int>) -> Double {
        let windows = tail.prefix(50)
        return windows.reduce(0) { $0 + envelope[$1] } / Double(max(windows.count, 1))
    }

    /// Whether `f` is within the bounds this test holds the engine to against libfluidsynth.
    static func isAlike(_ f: Figures) -> Bool {
        abs(f.level) < 1 && f.envelope < 2 && f.tailEnvelope < 3 && abs(f.decayRatio - 1) < 0.15
    }

    func testReverbAndChorusSoundAsLibfluidsynthsAndTheirTailDecaysAlike() throws {
        let scratch = try ScratchDirectory(prefix: "engine-effects")
        defer { scratch.remove() }
        for font in SamplerEngineTests.fonts {
            let fontName = (font as NSString).lastPathComponent
            let reference = try render(Self.chord(), font: font, engine: "fluidsynth", scratch: scratch).samples
            let wet = Self.figures(ours: try render(Self.chord(), font: font, engine: "seqplay", scratch: scratch).samples, reference: reference)
            let dry = Self.figures(ours: try render(Self.chord(), font: font, engine: "seqplay", flags: ["--no-reverb", "--no-chorus"], scratch: scratch).samples,
                                   reference: reference)
            print("reverb and chorus, \(fontName), seqplay vs fluidsynth: \(wet.summary)")
            print("the same, seqplay dry vs fluidsynth with both: \(dry.summary)")
            XCTAssertTrue(Self.isAlike(wet), "\(fontName): \(wet.summary)")
            XCTAssertFalse(Self.isAlike(dry), "\(fontName): a dry render passes for a wet one: \(dry.summary)")
            XCTAssertTrue(dry.tailEnvelope >= 3 || abs(dry.decayRatio - 1) >= 0.15, "\(fontName): a dry tail passes for a reverb's: \(dry.summary)")
        }
    }

    func testRoomSizeAndLevelFlagsChangeTheTailAsLibfluidsynths() throws {
        let scratch = try ScratchDirectory(prefix: "engine-room")
        defer { scratch.remove() }
        let song = Self.chord(chorus: 0)
        var decays: [String: (ours: Double, theirs: Double)] = [:], tails: [String: (ours: Double, theirs: Double)] = [:]
        for (name, flags) in [("default", [String]()), ("room 0.8", ["--reverb-room-size", "0.8"]), ("level 0.3", ["--reverb-level", "0.3"])] {
            let reference = try render(song, engine: "fluidsynth", flags: flags, scratch: scratch).samples
            let f = Self.figures(ours: try render(song, engine: "seqplay", flags: flags, scratch: scratch).samples, reference: reference)
            print("reverb \(name), seqplay vs fluidsynth: \(f.summary)")
            XCTAssertTrue(Self.isAlike(f), "\(name): \(f.summary)")
            decays[name] = (f.ourDecay, f.theirDecay)
            tails[name] = (f.ourTail, f.theirTail)
        }
        let base = try XCTUnwrap(decays["default"]), room = try XCTUnwrap(decays["room 0.8"])
        XCTAssertLessThan(room.theirs / base.theirs, 0.6, "a larger room decays slower with libfluidsynth")
        XCTAssertLessThan(room.ours / base.ours, 0.6, "a larger room decays slower with seqplay's engine")
        let loud = try XCTUnwrap(tails["default"]), quiet = try XCTUnwrap(tails["level 0.3"])
        print(String(format: "reverb level 0.3: the tail %.1f dB below the default level's (fluidsynth %.1f dB)",
                     loud.ours - quiet.ours, loud.theirs - quiet.theirs))
        XCTAssertGreaterThan(loud.theirs - quiet.theirs, 5, "a lower level makes libfluidsynth's tail quieter")
        XCTAssertEqual(loud.ours - quiet.ours, loud.theirs - quiet.theirs, accuracy: 1, "the level acts on seqplay's tail as on libfluidsynth's")
    }

    /// What `serve --engine ENGINE -o` recorded of a chord a network peer sent (CC 91 at 127) after `commands` went
    /// to its shell: the 10 ms envelope and the decay rate of its tail.
    func servedTail(engine: String, commands: [String], scratch: ScratchDirectory) throws -> Double {
        var song = Self.chord(chorus: 0)
        song.lengthMs = Self.songEndMs + 2500
        let songPath = scratch.path("served.mid"), heard = scratch.path("heard-\(engine)-\(commands.count).wav")
        try MIDIControlTests.midiFile(song).write(to: URL(fileURLWithPath: songPath))
        let network = freePort(Int32(SOCK_DGRAM.rawValue)), shell = freePort()
        let serve = try ChildProcess(seqplayBinary.path, ["serve", "--network", "--listen", "127.0.0.1:\(network)", "--shell", "\(shell)",
                                                          "--sf2", SamplerEngineTests.shippedFont, "--engine", engine, "-o", heard,
                                                          "--duration", "60", "--no-state"],
                                     standardInput: .null, standardOutput: .capture, standardError: .capture)
        defer { if serve.isRunning { serve.signal(SIGKILL); serve.waitUntilExit() } }
        let client = try LineClient(port: shell)
        XCTAssertEqual(client.ask((commands + ["echo end"]).joined(separator: "\n"), until: "end\n"), "end\n")
        let player = try runSeqplay([songPath, "--sf2", SamplerEngineTests.shippedFont, "--network-connect", "127.0.0.1:\(network)", "--no-audio"],
                                    timeLimit: 60)
        XCTAssertEqual(player.status, 0, player.standardError)
        serve.terminate()
        XCTAssertTrue(serve.waitUntilExit(timeout: 10))
        XCTAssertEqual(serve.exitStatus, 0, serve.standardErrorText)
        let channels = try AudioFileReader(path: heard).readAll()
        let samples = (0..<channels[0].count).flatMap { [channels[0][$0], channels[1][$0]] }
        // The tail: from 150 ms after the envelope last stood within 6 dB of its peak, 45 dB down, but no lower than
        // 10 dB above the recording's noise (its 16-bit dither, about -90 dBFS, heard in its first 100 ms, before the
        // player's notes): a floor under the dither is never reached, and the fit ran over the noise (-10 dB/s).
        let envelope = Self.envelope(samples)
        let peak = envelope.max() ?? -200
        let held = envelope.lastIndex { $0 > peak - 6 } ?? 0
        let start = held + 15
        let noise = envelope.prefix(10).max() ?? -200
        let floor = max((start < envelope.count ? envelope[start] : -200) - 45, noise + 10, -100)
        let end = envelope[min(start, envelope.count)...].firstIndex { $0 < floor } ?? envelope.count
        let rate = Self.decayRate(envelope, over: start..<end)
        print(String(format: "serve --engine %@ after %@: tail %.2f s, decay %.1f dB/s", engine, commands.isEmpty ? "no command" : commands.joined(separator: "; "),
                     Double(end - start) / 100, rate))
        return rate
    }

    func testRoomSizeAndLevelFromTheShellAtRunTimeChangeTheTailAsLibfluidsynths() throws {
        let scratch = try ScratchDirectory(prefix: "engine-room-shell")
        defer { scratch.remove() }
        let larger = ["rev_setroomsize 0.8", "rev_setlevel 1"]
        var ratios: [String: Double] = [:]
        for engine in ["fluidsynth", "seqplay"] {
            let base = try servedTail(engine: engine, commands: [], scratch: scratch)
            let room = try servedTail(engine: engine, commands: larger, scratch: scratch)
            XCTAssertLessThan(base, -20, "\(engine): the reverb's tail decays")
            ratios[engine] = room / base
            print(String(format: "serve --engine %@: room 0.8 from the shell decays at %.2f times the default room's rate", engine, room / base))
        }
        let ours = try XCTUnwrap(ratios["seqplay"]), theirs = try XCTUnwrap(ratios["fluidsynth"])
        XCTAssertLessThan(theirs, 0.6, "the shell's room size acts on libfluidsynth's reverb")
        XCTAssertLessThan(ours, 0.6, "the shell's room size acts on seqplay's reverb")
        XCTAssertEqual(ours, theirs, accuracy: 0.15 * theirs)
    }

    func testChannelWithCC91AtZeroStaysDryInBothEngines() throws {
        let scratch = try ScratchDirectory(prefix: "engine-cc91")
        defer { scratch.remove() }
        for engine in ["fluidsynth", "seqplay"] {
            var tails: [Double] = []
            for send: UInt8 in [0, 127] {
                let song = Self.chord(reverb: send, chorus: 0)
                let wet = try render(song, engine: engine, flags: ["--no-chorus"], scratch: scratch).samples
                let dry = try render(song, engine: engine, flags: ["--no-reverb", "--no-chorus"], scratch: scratch).samples
                XCTAssertEqual(wet.count, dry.count)
                let difference = zip(wet, dry).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
                let tail = Self.envelope(wet)[(Self.songEndMs + 500) / 10]
                print(String(format: "--engine %@, CC 91 = %d: reverb on differs from off by at most %.2g, tail 0.5 s after the song %.1f dBFS",
                             engine, Int(send), difference, tail))
                if send == 0 { XCTAssertLessThan(difference, 1e-6, "\(engine): CC 91 = 0 sent to the reverb") }
                tails.append(tail)
            }
            XCTAssertGreaterThan(tails[1], tails[0] + 30, "\(engine): CC 91 = 127 gives the channel a reverb tail")
        }
    }

    func testRenderWithReverbAndChorusIsTheSameBytesOnAnyThreads() throws {
        let scratch = try ScratchDirectory(prefix: "engine-effects-threads")
        defer { scratch.remove() }
        let song = try XCTUnwrap(EngineCommandLineTests.songs.first)
        var renders: [Data] = []
        for threads in [1, 2, 3] {
            let output = scratch.path("\(threads).wav")
            let run = try runSeqplay(["render", song, "--sf2", SamplerEngineTests.shippedFont, "--engine", "seqplay", "--end", "20",
                                      "--bit-depth", "float", "--threads", "\(threads)", "-o", output], timeLimit: 600)
            XCTAssertEqual(run.status, 0, run.standardError)
            renders.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        let chord = try render(Self.chord(), engine: "seqplay", scratch: scratch)
        let chordOnTwo = try render(Self.chord(), engine: "seqplay", threads: 2, scratch: scratch)
        let dry = try render(Self.chord(), engine: "seqplay", flags: ["--no-reverb", "--no-chorus"], scratch: scratch)
        XCTAssertNotEqual(chord.data, dry.data, "the chord's render has reverb and chorus")
        XCTAssertEqual(chord.data, chordOnTwo.data)
        XCTAssertEqual(renders[0], renders[1])
        XCTAssertEqual(renders[0], renders[2])
    }

    func testSystemResetEmptiesTheReverbsLinesOnItsSample() throws {
        let bank = try SoundFontBank(path: SamplerEngineTests.shippedFont)
        let frames = 3 * Self.rate, resetFrame = Self.rate + 1000
        func render(resetting: Bool) -> [Float] {
            let engine = SoundFontEngine(bank: bank, sampleRate: Double(Self.rate), polyphony: 32)
            engine.setReverb(.init(isEnabled: true))
            var events: [SoundFontEngine.Event] = [.init(frame: 0, .programChange(channel: 0, program: 19)),
                                                   .init(frame: 0, .controlChange(channel: 0, controller: 91, value: 127)),
                                                   .init(frame: 100, .noteOn(channel: 0, key: 60, velocity: 100)),
                                                   .init(frame: Self.rate / 2, .noteOff(channel: 0, key: 60))]
            if resetting { events.append(.init(frame: resetFrame, .systemReset)) }
            var left = [Float](repeating: 0, count: frames), right = left
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in engine.render(frames: frames, events: events, left: l.baseAddress!, right: r.baseAddress!) }
            }
            return left
        }
        let tail = render(resetting: false), reset = render(resetting: true)
        let before = reset[(resetFrame - 1000)..<resetFrame].map(abs).max() ?? 0
        let after = reset[(resetFrame + 10)...].map(abs).max() ?? 0
        let untouched = tail[(resetFrame + 10)..<(resetFrame + 4410)].map(abs).max() ?? 0
        print(String(format: "system reset at frame %d: peak %.2g before it, %.2g after (%.2g without the reset)", resetFrame, before, after, untouched))
        XCTAssertEqual(Array(reset[..<resetFrame]), Array(tail[..<resetFrame]), "the same up to the reset's sample")
        XCTAssertGreaterThan(untouched, 1e-4, "the reverb's tail sounds past the reset's frame without it")
        // FluidSynth's reset empties the lines, not the taps' interpolators: what they hold goes round again, 10 dB down or more.
        XCTAssertLessThan(after, untouched / 3, "the reset empties the reverb's lines")
    }

    func testRenderAllocatesNothingWithReverbAndChorusOnAndChanging() throws {
        let bank = try SoundFontBank(path: SamplerEngineTests.shippedFont)
        let engine = SoundFontEngine(bank: bank, polyphony: 32, threads: 2)
        engine.setReverb(.init(isEnabled: true))
        engine.setChorus(.init(isEnabled: true))
        let frames = 256
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        var blocks: [[SoundFontEngine.Event]] = []
        for block in 0..<300 {
            var events: [SoundFontEngine.Event] = [
                .init(frame: 3, .noteOn(channel: block % 2, key: 48 + block % 24, velocity: 100)),
                .init(frame: 40, .controlChange(channel: block % 2, controller: block % 2 == 0 ? 91 : 93, value: (block * 37) % 128)),
                .init(frame: 200, .noteOff(channel: block % 2, key: 48 + (block + 12) % 24)),
            ]
            if block % 97 == 50 { events.append(.init(frame: 120, .systemReset)) }
            blocks.append(events)
        }
        engine.render(frames: frames, events: blocks[0], left: left, right: right)
        var peak: Float = 0, chorusVoices = 0
        seqplay_alloc_count_begin()
        for index in 1..<blocks.count {
            switch index % 40 {
            case 10: engine.setReverb(.init(roomSize: Double(index % 100) / 100, damping: 0.3, width: 0.8, level: 0.7))
            case 20:
                chorusVoices = 1 + index % 9
                engine.setChorus(.init(voices: chorusVoices, level: 1.5, speed: 0.5, depth: 12, type: index % 80 == 20 ? .triangle : .sine))
            case 30: engine.setReverb(.init(isEnabled: false)); engine.setChorus(.init(isEnabled: false))
            case 35: engine.setReverb(.init(isEnabled: true)); engine.setChorus(.init(isEnabled: true))
            default: break
            }
            engine.render(frames: frames, events: blocks[index], left: left, right: right)
            var frame = frames  // (a while loop: a generic loop over a range allocates in a debug build)
            while frame > 0 { frame -= 1; peak = max(peak, abs(right[frame])) }
        }
        let counts = seqplay_alloc_count_end()
        print("render thread with reverb and chorus on and changing: \(counts.allocations) allocations over \(blocks.count - 1) blocks; peak \(peak)")
        XCTAssertEqual(counts.allocations, 0, "the render thread allocated with reverb and chorus on")
        XCTAssertGreaterThan(peak, 0.001, "notes sounded")
        XCTAssertEqual(engine.reverb.isEnabled, true)
        XCTAssertEqual(engine.chorus.voices, chorusVoices)
    }
}
