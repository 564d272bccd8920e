import AllocationCounter
import AudioGraph
import Effects
import Foundation
import LV2
import MIDICore
import MIDIFile
import Rendering
import TestSupport
import XCTest

/// What seqplay does as an LV2 host beyond running a plugin: latency that settles after the first cycle,
/// presets whose files the worker loads, plugins that print while `-o -` writes the WAV, effects that do not
/// fit the stereo chain, and values a port cannot take. x42's plugins and `lv2apply` (lilv's own host) are
/// the references.
final class LV2HostTests: XCTestCase {
    var scratch: ScratchDirectory!

    static let nodelay = TestPlugins.nodelay
    static let convolver = "http://gareus.org/oss/lv2/zeroconvolv#Stereo"
    static let xfade = "http://gareus.org/oss/lv2/xfade"
    static let matrixMixer = "http://gareus.org/oss/lv2/matrixmixer#i8o8"
    static let equaliser = "http://gareus.org/oss/lv2/fil4#stereo"

    override func setUpWithError() throws {
        scratch = try ScratchDirectory(prefix: "lv2-host")
    }

    override func tearDown() { scratch?.remove() }

    private func render(_ extra: [String], to name: String, end: String = "4") throws -> String {
        let path = scratch.path(name)
        let run = try runSeqplay([TestPlugins.song, "--sf2", TestPlugins.font, "--end", end, "--tail", "1",
                                  "--bit-depth", "float", "-o", path] + extra, timeLimit: 120)
        XCTAssertEqual(run.status, 0, run.standardError)
        return path
    }

    /// The first frame louder than -80 dBFS.
    private func onset(_ samples: [Float]) throws -> Int { try XCTUnwrap(samples.firstIndex { abs($0) > 1e-4 }) }

    /// x42 nodelay (mono: one instance per channel here) delays by `delay` but reports it only after its first
    /// cycle (it applies a new delay from the next cycle, after the host has read the report). lv2apply (which
    /// does not compensate) shows the delay the plugin applies to the dry left channel: its onset 1000 frames
    /// later. seqplay compensates it: the onset stays on its sample, and the render is lv2apply's moved back by
    /// exactly that many frames (and equals the dry render).
    func testLatencyReportedAfterTheFirstCycleIsCompensated() throws {
        try TestPlugins.require(Self.nodelay)
        let lv2apply = "/usr/bin/lv2apply"
        guard FileManager.default.isExecutableFile(atPath: lv2apply) else { throw XCTSkip("lv2apply (lilv-utils) is not installed") }
        let dryPath = try render([], to: "dry.wav")
        let dryLeft = scratch.path("dry-left.wav"), reference = scratch.path("reference.wav")
        let remix = try runCommand(URL(fileURLWithPath: "/usr/bin/sox"), [dryPath, dryLeft, "remix", "1"])
        XCTAssertEqual(remix.status, 0, remix.standardError)
        let apply = try runCommand(URL(fileURLWithPath: lv2apply), ["-i", dryLeft, "-o", reference, "-c", "delay", "1000", Self.nodelay])
        XCTAssertEqual(apply.status, 0, apply.standardError)
        let dry = try readChannels(dryPath), applied = try readChannels(reference)[0]
        let delay = try onset(applied) - onset(dry[0])
        XCTAssertEqual(delay, 1000, "the delay nodelay applies, as lilv's host shows it")
        for settings in ["delay=1000", "delay=1000,report_latency=1"] {
            let hosted = try readChannels(try render(["--fx", "lv2:\(Self.nodelay),\(settings)"], to: "hosted.wav"))
            XCTAssertEqual(try onset(hosted[0]), try onset(dry[0]), settings)
            XCTAssertLessThanOrEqual(maximumDifference(hosted[0], Array(applied.dropFirst(delay))), 1e-6, settings)
            for channel in 0..<2 {
                XCTAssertLessThanOrEqual(maximumDifference(hosted[channel], dry[channel]), 1e-6, "\(settings) channel \(channel)")
            }
        }
    }

    /// The sampler and an LV2 instrument play from one player through the router, and the instrument loses no
    /// event while the channel groups render far ahead of the mix: 20,000 controller changes on its channel in
    /// the first 2.6 s (more than its queue holds, all pulled at once without a limit) and then a note at 3 s
    /// (sample 132300): the note sounds from its sample on, with one thread and with two.
    func testInstrumentLosesNoEventWhileGroupsRenderAhead() throws {
        try TestPlugins.require(TestPlugins.piano)
        // 480 ticks per quarter at 120 BPM: 960 ticks a second.
        var instrumentTrack = (0..<20_000).map { TimedEvent(tick: Int64($0 / 8), .midi(.controlChange(channel: 0, controller: 1, value: UInt8($0 % 128)))) }
        instrumentTrack += [TimedEvent(tick: 2880, .midi(.noteOn(channel: 0, note: 60, velocity: 100))),
                            TimedEvent(tick: 3840, .midi(.noteOff(channel: 0, note: 60, velocity: 0))), TimedEvent(tick: 3840, .meta(.endOfTrack))]
        let samplerTrack = [TimedEvent(tick: 0, .midi(.noteOn(channel: 2, note: 48, velocity: 90))),
                            TimedEvent(tick: 480, .midi(.noteOff(channel: 2, note: 48, velocity: 0))), TimedEvent(tick: 3840, .meta(.endOfTrack))]
        let song = MusicSequence(format: 1, division: .ticksPerQuarter(480),
                                 tracks: [MusicTrack(events: instrumentTrack), MusicTrack(events: samplerTrack)])
        let piano = try LV2PluginSettings(parsing: "\(TestPlugins.piano),random_detuning=0", role: .instrument)
        for threads in [1, 2] {
            var options = RenderOptions().renderingToFile(threads: threads)
            options.instruments = [LV2InstrumentAssignment(channels: [0], settings: piano)]
            let renderer = try SongRenderer(sequence: song, soundFontPaths: [TestPlugins.font], options: options)
            XCTAssertNotNil(renderer.channelGroups, "the sampler's channels render as groups, ahead of the mix")
            var instrument: [Float] = []
            while let block = renderer.renderNextBlock() {
                instrument += try XCTUnwrap(renderer.instruments[0].lastOutput)[0].prefix(block.frameLength)
            }
            XCTAssertGreaterThan(instrument.count, 132_300 + 44_100)
            XCTAssertEqual(instrument[..<132_300].map(abs).max(), 0, "\(threads) threads: nothing before the note")
            XCTAssertGreaterThan(instrument[132_300..<(132_300 + 4_410)].map(abs).max() ?? 0, 0.01, "\(threads) threads: the note")
        }
    }

    /// A latency that changes while rendering is followed: nodelay's delay set from 1000 to 2000 frames (the
    /// render drops 1000 frames) and then to 500 (it puts in 1500 frames of silence), in a render to a file
    /// (`renderNextBlock`) and in a real-time output's fixed blocks (`renderBlock`, 300 frames: the silence ends
    /// inside a block). Apart from the block in which the plugin crossfades to its new delay (and the silence
    /// put in), the render equals the dry one sample for sample; rendering allocates nothing.
    func testLatencyChangeWhileRenderingIsFollowed() throws {
        try TestPlugins.require(Self.nodelay)
        let song = try MIDIFileReader.read(contentsOf: TestPlugins.song).sequence
        func renderer(_ effects: String?) throws -> SongRenderer {
            var options = RenderOptions()
            options.effects = try effects.map { try EffectChainSpec(parsing: $0) }
            return try SongRenderer(sequence: song, soundFontPaths: [TestPlugins.font], options: options)
        }
        func left(_ block: AudioBuffer) -> [Float] { Array(block[0].prefix(block.frameLength)) }
        for fixedFrames in [nil, 300] {
            let name = fixedFrames.map { "renderBlock(frameCount: \($0))" } ?? "renderNextBlock()"
            func next(_ renderer: SongRenderer) -> AudioBuffer? {
                fixedFrames.map { renderer.renderBlock(frameCount: $0) } ?? renderer.renderNextBlock()
            }
            let dry = try renderer(nil), wet = try renderer("lv2:\(Self.nodelay),delay=1000")
            let node = try XCTUnwrap(wet.engine.attachedNodes.compactMap { $0 as? LV2EffectNode }.first)
            let block = fixedFrames ?? wet.options.blockFrames, grow = 60, shrink = 200, blocks = 300
            var dryLeft: [Float] = [], wetLeft: [Float] = []
            for _ in 0..<(blocks + 10) { dryLeft += left(try XCTUnwrap(next(dry))) }
            var allocations = 0
            for index in 0..<blocks {
                if index == grow { node.setValue(2000, for: "delay") }
                if index == shrink { node.setValue(500, for: "delay") }
                seqplay_alloc_count_begin()
                let rendered = next(wet)
                let counted = seqplay_alloc_count_end().allocations
                if index > 3 { allocations += counted }
                wetLeft += left(try XCTUnwrap(rendered))
            }
            XCTAssertEqual(allocations, 0, "\(name): allocations while rendering and following the latency")
            XCTAssertEqual(node.latencyFrames, 500)
            let silence = (shrink + 2) * block..<((shrink + 2) * block + 1500)
            XCTAssertEqual(wetLeft[silence].map(abs).max(), 0, "\(name): the silence put in")
            for range in [0..<(grow * block), (grow + 2) * block..<(shrink * block), silence.upperBound..<wetLeft.count] {
                XCTAssertGreaterThan(dryLeft[range].map(abs).max() ?? 0, 0.01, "\(name): \(range) has sound")
                XCTAssertLessThanOrEqual(maximumDifference(Array(wetLeft[range]), Array(dryLeft[range])), 1e-6, "\(name): frames \(range)")
            }
        }
    }

    /// x42 zeroconvolv's preset `No-OP Stereo` loads an impulse response (a unit impulse at 48 kHz) through the
    /// worker when restored: it is in place before the first block, and its latency (64 frames once loaded)
    /// compensated, so a render at 48 kHz is the dry one from frame 0, by the preset's name or URI.
    func testPresetLoadedByTheWorkerIsReadyForTheFirstBlock() throws {
        try TestPlugins.require(Self.convolver)
        let info = try XCTUnwrap(LV2Plugins.plugin(uri: Self.convolver))
        let presetURI = try XCTUnwrap(zip(info.presets, info.presetURIs).first { $0.0 == "No-OP Stereo" }?.1)
        let rate = ["--sample-rate", "48000"]
        let dry = try readChannels(try render(rate, to: "dry.wav"))
        XCTAssertLessThan(try onset(dry[0]), 576, "the song sounds in the frames the preset used to leave silent")
        for preset in ["No-OP Stereo", presetURI] {
            let convolved = try readChannels(try render(rate + ["--fx", "lv2:\(Self.convolver),preset=\(preset)"], to: "convolved.wav"))
            XCTAssertEqual(dry[0].count, convolved[0].count)
            XCTAssertEqual(try onset(convolved[0]), try onset(dry[0]), preset)
            for channel in 0..<2 {
                XCTAssertLessThanOrEqual(maximumDifference(dry[channel], convolved[channel]), 1e-5, "\(preset) channel \(channel)")
            }
        }
    }

    /// A bundle built here whose effect prints to standard output (C's stdio, flushed) when it is instantiated
    /// and on its first run; `-o -` piped to a file must be a clean WAV (ffprobe reads it without a word, sox's
    /// samples equal those of `-o FILE`), and the plugin's text must reach standard error. zeroconvolv, which
    /// prints as it loads a preset, too; and a batch's `--manifest -`.
    func testPluginsPrintingDoNotEnterTheWAVOnStandardOutput() throws {
        let chatty = try buildChattyPlugin()
        var effects = [("lv2:\(chatty)", "LV2_PATH='\(scratch.path("lv2"))'")]
        if LV2Plugins.plugin(uri: Self.convolver) != nil { effects.append(("lv2:\(Self.convolver),preset=No-OP Stereo", "")) }
        for (effect, environment) in effects {
            let file = scratch.path("file.wav"), piped = scratch.path("piped.wav"), errors = scratch.path("errors.txt")
            let arguments = "'\(TestPlugins.song)' --sf2 '\(TestPlugins.font)' --end 2 --tail 1 --fx '\(effect)'"
            let toFile = try runShell("\(environment) '\(seqplayBinary.path)' \(arguments) -o '\(file)'", timeLimit: 120)
            XCTAssertEqual(toFile.status, 0, toFile.standardError)
            let toPipe = try runShell("\(environment) '\(seqplayBinary.path)' \(arguments) -o - 2>'\(errors)' | cat > '\(piped)'", timeLimit: 120)
            XCTAssertEqual(toPipe.status, 0, toPipe.standardError)
            let stderr = try String(contentsOfFile: errors, encoding: .utf8)
            if effect.contains(chatty) {
                XCTAssertTrue(stderr.contains("chatty: instantiated"), stderr)
                XCTAssertTrue(stderr.contains("chatty: first run"), stderr)
            } else {
                XCTAssertTrue(stderr.contains("Convolver map"), stderr)
            }
            let probe = try runCommand(URL(fileURLWithPath: "/usr/bin/ffprobe"),
                                       ["-v", "error", "-show_entries", "stream=codec_name,channels", "-of", "csv=p=0", piped])
            XCTAssertEqual(probe.status, 0, probe.standardError)
            XCTAssertEqual(probe.standardError, "", effect)
            XCTAssertEqual(probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), "pcm_s16le,2", effect)
            var raws: [Data] = []
            for (input, raw) in [(file, "file.raw"), (piped, "piped.raw")] {
                let sox = try runCommand(URL(fileURLWithPath: "/usr/bin/sox"), ["-V1", input, "-t", "raw", scratch.path(raw)])
                XCTAssertEqual(sox.status, 0, sox.standardError)
                raws.append(try Data(contentsOf: URL(fileURLWithPath: scratch.path(raw))))
            }
            XCTAssertGreaterThan(raws[0].count, 100_000)
            XCTAssertEqual(raws[0], raws[1], "\(effect): the piped WAV's samples are the file's, and nothing else")
        }
        // A batch's manifest on standard output (`--manifest -`) is kept to itself the same way: JSON lines only.
        let songs = scratch.path("songs")
        try FileManager.default.createDirectory(atPath: songs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestPlugins.song, toPath: songs + "/bach.mid")
        let batch = try runSeqplay([songs, "--output-dir", scratch.path("out"), "--sf2", TestPlugins.font, "--end", "2",
                                    "--fx", "lv2:\(chatty)", "--manifest", "-"],
                                   environment: ["LV2_PATH": scratch.path("lv2")], timeLimit: 120)
        XCTAssertEqual(batch.status, 0, batch.standardError)
        XCTAssertTrue(batch.standardError.contains("chatty: instantiated"), batch.standardError)
        let lines = batch.standardOutput.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, batch.standardOutput)
        for line in lines { XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), String(line)) }
    }

    /// An effect that is stereo neither way (x42 xfade, 4 in and 2 out; x42's 8×8 matrix mixer) is refused when
    /// the flags are read, exit 64, one line, and listed as not usable; one that fits is listed as before.
    func testEffectNotFittingTheStereoChainIsRefusedAtValidation() throws {
        try TestPlugins.require(Self.xfade, Self.matrixMixer, TestPlugins.delay)
        let output = scratch.path("out.wav")
        for uri in [Self.xfade, Self.matrixMixer] {
            let run = try runSeqplay([TestPlugins.song, "--sf2", TestPlugins.font, "--fx", "lv2:\(uri)", "-o", output], timeLimit: 60)
            XCTAssertEqual(run.status, 64, run.standardError)
            XCTAssertEqual(run.standardError.split(separator: "\n").count, 1, run.standardError)
            XCTAssertTrue(run.standardError.hasPrefix("seqplay: --fx: LV2 plugin '\(uri)' has "), run.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
        let listed = try runSeqplay(["plugins", "--where", "effect"])
        XCTAssertEqual(listed.status, 0)
        let lines = listed.standardOutput.split(separator: "\n")
        let xfade = try XCTUnwrap(lines.first { $0.hasPrefix(Self.xfade + "  ") })
        XCTAssertTrue(xfade.hasSuffix("(not usable: 4 audio input(s) and 2 output(s) do not fit the stereo effect chain)"), String(xfade))
        let delay = try XCTUnwrap(lines.first { $0.hasPrefix(TestPlugins.delay + "  ") })
        XCTAssertFalse(delay.contains("not usable"))
        let unusable = try runSeqplay(["plugins", "--where", "unusable", "--where", "effect"])
        XCTAssertTrue(unusable.standardOutput.contains(Self.matrixMixer), unusable.standardOutput)
        XCTAssertFalse(unusable.standardOutput.contains(TestPlugins.delay), unusable.standardOutput)
    }

    /// Values within a port's range that it cannot take are refused with one line naming what it takes: a
    /// toggle's 0.5, an integer port's 1000.5, an enumeration's value it does not name; a symbol (or the preset)
    /// given twice; a preset neither name nor URI. Each is exit 64 with one line and no output, lilv's own
    /// messages included.
    func testValuesAPortCannotTakeAreRefused() throws {
        try TestPlugins.require(Self.nodelay, Self.equaliser, Self.convolver)
        let cases: [(String, String)] = [
            ("\(Self.equaliser),enable=0.5", "\(Self.equaliser): enable '0.5' is not 0 or 1 (the port is a toggle)"),
            ("\(Self.nodelay),delay=1000.5", "\(Self.nodelay): delay '1000.5' is not a whole number (the port is an integer)"),
            ("\(Self.nodelay),report_latency=1.5",
             "\(Self.nodelay): report_latency '1.5' is not one of 0 (Delay, do not report latency), 1 (Delay and report latency), 2 (No delay, only report latency), 3 (No delay, do not report latency)"),
            ("\(Self.nodelay),delay=10,delay=20", "\(Self.nodelay): delay is given twice"),
            ("\(Self.convolver),preset=No-OP Stereo,preset=No-OP Stereo", "\(Self.convolver): preset is given twice"),
            ("\(Self.convolver),preset=urn:no-such-preset", "\(Self.convolver): unknown preset 'urn:no-such-preset' (presets: No-OP Stereo)"),
        ]
        let output = scratch.path("out.wav")
        for (settings, message) in cases {
            let run = try runSeqplay([TestPlugins.song, "--sf2", TestPlugins.font, "--fx", "lv2:\(settings)", "-o", output], timeLimit: 60)
            XCTAssertEqual(run.status, 64, settings)
            XCTAssertEqual(run.standardError, "seqplay: --fx: \(message)\n", settings)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
        // The same values as the ports take them pass.
        _ = try render(["--fx", "lv2:\(Self.equaliser),enable=1;lv2:\(Self.nodelay),delay=10,report_latency=1"], to: "fine.wav", end: "1")
    }

    /// mda Piano on channel 1 of the Bach prelude beside the SoundFont's channel 2: at unity it clipped (peak
    /// 1.0 in a float render); staged by `defaultGain` the mix peaks near the SoundFont-only render's level.
    func testInstrumentBesideSoundFontChannelsDoesNotClip() throws {
        try TestPlugins.require(TestPlugins.piano)
        func peak(_ path: String) throws -> Float { try readChannels(path).flatMap { $0 }.map(abs).max() ?? 0 }
        let soundFont = try peak(try render([], to: "soundfont.wav", end: "12"))
        let mixed = try peak(try render(["--instrument", "1=lv2:\(TestPlugins.piano)"], to: "mixed.wav", end: "12"))
        XCTAssertLessThan(mixed, 0.5)
        XCTAssertGreaterThan(mixed, soundFont / 2, "the piano is heard")
    }

    /// An effect of two audio inputs and outputs that copies its input and prints to standard output (stdio,
    /// flushed) when instantiated and on its first run, in a bundle under `scratch/lv2`; its URI.
    private func buildChattyPlugin() throws -> String {
        let bundle = scratch.path("lv2/chatty.lv2")
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        let source = scratch.path("chatty.c")
        try """
        #include <lv2/core/lv2.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        typedef struct { float *ports[4]; int runs; } Chatty;
        static LV2_Handle instantiate(const LV2_Descriptor *d, double rate, const char *path, const LV2_Feature *const *f) {
            printf("chatty: instantiated\\n"); fflush(stdout);
            return calloc(1, sizeof(Chatty));
        }
        static void connect(LV2_Handle h, uint32_t p, void *d) { if (p < 4) ((Chatty *)h)->ports[p] = d; }
        static void run(LV2_Handle h, uint32_t n) {
            Chatty *c = h;
            if (c->runs++ == 0) { printf("chatty: first run\\n"); fflush(stdout); }
            for (int i = 0; i < 2; i++) if (c->ports[2 + i] != c->ports[i]) memcpy(c->ports[2 + i], c->ports[i], n * sizeof(float));
        }
        static void cleanup(LV2_Handle h) { free(h); }
        static const LV2_Descriptor descriptor = {"urn:seqplay:test:chatty", instantiate, connect, NULL, run, NULL, cleanup, NULL};
        LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t i) { return i == 0 ? &descriptor : NULL; }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let compile = try runCommand(URL(fileURLWithPath: "/usr/bin/cc"), ["-shared", "-fPIC", "-o", bundle + "/chatty.so", source])
        guard compile.status == 0 else { throw XCTSkip("no C compiler: \(compile.standardError)") }
        try """
        @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
        <urn:seqplay:test:chatty> a lv2:Plugin, lv2:EffectPlugin ; lv2:binary <chatty.so> ;
            <http://usefulinc.com/ns/doap#name> "Chatty" ;
            lv2:port [ a lv2:AudioPort, lv2:InputPort ; lv2:index 0 ; lv2:symbol "in_l" ; lv2:name "In L" ] ,
                     [ a lv2:AudioPort, lv2:InputPort ; lv2:index 1 ; lv2:symbol "in_r" ; lv2:name "In R" ] ,
                     [ a lv2:AudioPort, lv2:OutputPort ; lv2:index 2 ; lv2:symbol "out_l" ; lv2:name "Out L" ] ,
                     [ a lv2:AudioPort, lv2:OutputPort ; lv2:index 3 ; lv2:symbol "out_r" ; lv2:name "Out R" ] .
        """.write(toFile: bundle + "/manifest.ttl", atomically: true, encoding: .utf8)
        return "urn:seqplay:test:chatty"
    }
}
