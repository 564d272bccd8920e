import Foundation
import LV2
import TestSupport
import XCTest

/// seqplay's LV2 hosting from the command line, against lilv's own host (`lv2apply`) where it can run the
/// plugin, and sample-exact instrument timing.
final class LV2CommandLineTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory(prefix: "lv2-cli")
    }

    override func tearDown() { scratch?.remove() }

    private func seqplay(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
        let run = try runSeqplay(arguments, environment: environment, timeLimit: 120)
        return run
    }

    private func render(_ extra: [String], to name: String) throws -> String {
        let path = scratch.path(name)
        let run = try seqplay([TestPlugins.song, "--sf2", TestPlugins.font, "--end", "6", "--tail", "2",
                               "--bit-depth", "float", "-o", path] + extra)
        XCTAssertEqual(run.status, 0, run.standardError)
        return path
    }

    /// A dry render through `lv2apply` and the same render through `--fx lv2:` are equal (to float rounding;
    /// here exactly): a linear effect (mda Delay, settings given) and a reverb (mda Ambience).
    func testEffectEqualsLilvsOwnHost() throws {
        try TestPlugins.require(TestPlugins.delay, TestPlugins.ambience)
        let lv2apply = "/usr/bin/lv2apply"
        guard FileManager.default.isExecutableFile(atPath: lv2apply) else { throw XCTSkip("lv2apply (lilv-utils) is not installed") }
        let dry = try render([], to: "dry.wav")
        for (uri, settings) in [(TestPlugins.delay, [("fx_mix", "0.6"), ("feedback", "0.5")]), (TestPlugins.ambience, [])] {
            let reference = scratch.path("reference.wav")
            let apply = try runCommand(URL(fileURLWithPath: lv2apply),
                                       ["-i", dry, "-o", reference] + settings.flatMap { ["-c", $0.0, $0.1] } + [uri])
            XCTAssertEqual(apply.status, 0, apply.standardError)
            let fx = "lv2:" + ([uri] + settings.map { "\($0.0)=\($0.1)" }).joined(separator: ",")
            let hosted = try render(["--fx", fx], to: "hosted.wav")
            let expected = try readChannels(reference), actual = try readChannels(hosted), original = try readChannels(dry)
            XCTAssertEqual(expected[0].count, actual[0].count)
            for channel in 0..<2 {
                XCTAssertLessThanOrEqual(maximumDifference(expected[channel], actual[channel]), 1e-6, "\(uri) channel \(channel)")
                XCTAssertGreaterThan(maximumDifference(original[channel], actual[channel]), 0.001, "\(uri) changed the sound")
            }
        }
    }

    /// lv2apply provides no host features, so a plugin requiring the worker, options and URID map (dragonfly
    /// reverb) is checked against itself: it renders, changes the sound, and repeats exactly.
    func testReverbNeedingWorkerAndOptionsRendersRepeatably() throws {
        try TestPlugins.require(TestPlugins.room)
        let dry = try readChannels(try render([], to: "dry.wav"))
        let first = try render(["--fx", "lv2:\(TestPlugins.room)"], to: "first.wav")
        let second = try render(["--fx", "lv2:\(TestPlugins.room)"], to: "second.wav")
        XCTAssertEqual(FileManager.default.contents(atPath: first), FileManager.default.contents(atPath: second))
        XCTAssertGreaterThan(maximumDifference(dry[0], try readChannels(first)[0]), 0.001)
    }

    /// A look-ahead limiter's reported latency is compensated as the built-in limiter's: below its threshold
    /// the output equals the dry render, so no onset moves (by even one sample).
    func testLatencyIsCompensated() throws {
        try TestPlugins.require(TestPlugins.limiter)
        let dry = try readChannels(try render([], to: "dry.wav"))
        let limited = try readChannels(try render(["--fx", "lv2:\(TestPlugins.limiter),threshold=0"], to: "limited.wav"))
        XCTAssertEqual(dry[0].count, limited[0].count)
        let firstDry = try XCTUnwrap(dry[0].firstIndex { abs($0) > 1e-4 })
        let firstLimited = try XCTUnwrap(limited[0].firstIndex { abs($0) > 1e-4 })
        XCTAssertEqual(firstDry, firstLimited)
        XCTAssertLessThanOrEqual(maximumDifference(dry[0], limited[0]), 1e-5)
    }

    /// Notes off any 64-sample grid through mda Piano (random detuning 0): each note's waveform equals the
    /// first's, shifted by exactly the notes' time difference, with one thread, two threads and in a batch;
    /// the SoundFont path puts the same notes up to 32 samples off.
    func testInstrumentNotesStartOnTheirOwnSample() throws {
        try TestPlugins.require(TestPlugins.piano)
        // 960 ticks per quarter at 120 BPM and 44.1 kHz: 32 ticks are 735 samples, so these ticks fall on
        // samples 0, 66885, 134505, 203595 (5, 41, 11 past a multiple of 64).
        let ticks = [0, 2912, 5856, 8864]
        let samples = ticks.map { $0 / 32 * 735 }
        let song = scratch.path("offgrid.mid")
        try offGridSong(notes: ticks.map { ($0, 60, 576) }).write(to: URL(fileURLWithPath: song))
        let instrument = "1=lv2:\(TestPlugins.piano),random_detuning=0"
        var renders: [String: [Float]] = [:]
        for (name, extra) in [("one", [String]()), ("two", ["--threads", "2"])] {
            let path = scratch.path("\(name).wav")
            let run = try seqplay([song, "--sf2", TestPlugins.font, "--instrument", instrument, "--bit-depth", "float", "-o", path] + extra)
            XCTAssertEqual(run.status, 0, run.standardError)
            renders[name] = try readChannels(path)[0]
        }
        try FileManager.default.createDirectory(atPath: scratch.path("batch"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: song, toPath: scratch.path("batch/offgrid.mid"))
        let batch = try seqplay([scratch.path("batch"), "--output-dir", scratch.path("out"), "--sf2", TestPlugins.font,
                                 "--instrument", instrument, "--bit-depth", "float", "--jobs", "2"])
        XCTAssertEqual(batch.status, 0, batch.standardError)
        renders["batch"] = try readChannels(scratch.path("out/offgrid.wav"))[0]
        for (name, left) in renders {
            let reference = left[0..<4000]
            for start in samples.dropFirst() {
                let match = bestShift(of: left, at: start, matching: reference)
                XCTAssertEqual(match.shift, 0, "\(name): the note at sample \(start)")
                XCTAssertLessThan(match.difference, 1e-4, "\(name): the note at sample \(start)")
            }
        }
        XCTAssertEqual(renders["one"], renders["two"])
        XCTAssertEqual(renders["one"], renders["batch"])
    }

    /// A plugin channel is a stem like any other: with `--stems channel`, channel 1 on mda Piano and channel 2 on
    /// the SoundFont sampler, the two stems sum to the mix and the piano's stem holds the piano.
    func testInstrumentChannelIsAStem() throws {
        try TestPlugins.require(TestPlugins.piano)
        let songs = scratch.path("songs")
        try FileManager.default.createDirectory(atPath: songs, withIntermediateDirectories: true)
        var song = offGridSong(notes: [(0, 60, 576), (2912, 60, 576)])
        let second = offGridSong(notes: [(1000, 67, 576)], channel: 1)
        // Merge: the second song's track as a second track (format 1).
        song.replaceSubrange(8..<10, with: [0, 1])
        song.replaceSubrange(10..<12, with: [0, 2])
        song.append(second.suffix(from: 14))
        try song.write(to: URL(fileURLWithPath: songs + "/two.mid"))
        let run = try seqplay([songs, "--output-dir", scratch.path("out"), "--sf2", TestPlugins.font, "--stems", "channel",
                               "--instrument", "1=lv2:\(TestPlugins.piano),random_detuning=0", "--bit-depth", "float", "--labels"])
        XCTAssertEqual(run.status, 0, run.standardError)
        // The labels hold the instrument's notes too, on their exact samples (2912 ticks: sample 66885).
        let labels = try String(contentsOfFile: scratch.path("out/two.labels.csv"), encoding: .utf8)
        XCTAssertTrue(labels.contains(",66885,"), labels)
        XCTAssertEqual(labels.split(separator: "\n").filter { $0.hasSuffix(",ch01") || $0.contains(",1,0,") }.count, 2, labels)
        let mix = try readChannels(scratch.path("out/two.wav"))
        let piano = try readChannels(scratch.path("out/two.ch01.wav"))
        let sampler = try readChannels(scratch.path("out/two.ch02.wav"))
        XCTAssertGreaterThan(piano[0].map(abs).max() ?? 0, 0.02)
        XCTAssertGreaterThan(sampler[0].map(abs).max() ?? 0, 0.01)
        for channel in 0..<2 {
            let sum = zip(piano[channel], sampler[channel]).map(+)
            XCTAssertLessThanOrEqual(maximumDifference(mix[channel], sum), 1e-6)
        }
    }

    /// Program changes reach an LV2 instrument as MIDI (mda DX10 changes its sound), and not the SoundFont
    /// sampler (which would warn of a missing preset).
    func testProgramChangesGoToTheInstrument() throws {
        let dx10 = "http://drobilla.net/plugins/mda/DX10"
        try TestPlugins.require(dx10)
        var renders: [[Float]] = []
        for program in [UInt8(0), 7] {
            var song = offGridSong(notes: [(10, 60, 900)])
            // A program change at tick 0 before the tempo: insert delta 0, 0xC0 program after the track header.
            let trackStart = 22
            song.insert(contentsOf: [0, 0xC0, program], at: trackStart)
            let length = Int(song[18]) << 24 | Int(song[19]) << 16 | Int(song[20]) << 8 | Int(song[21]) + 3
            song.replaceSubrange(18..<22, with: [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            let path = scratch.path("program\(program).mid"), output = scratch.path("program\(program).wav")
            try song.write(to: URL(fileURLWithPath: path))
            let run = try seqplay([path, "--sf2", TestPlugins.font, "--instrument", "1=lv2:\(dx10)", "--bit-depth", "float", "-o", output])
            XCTAssertEqual(run.status, 0, run.standardError)
            XCTAssertEqual(run.standardError, "", "nothing to say")
            renders.append(try readChannels(output)[0])
        }
        XCTAssertGreaterThan(maximumDifference(renders[0], renders[1]), 0.01)
    }

    func testPluginsCommandListsAndDescribes() throws {
        try TestPlugins.require(TestPlugins.piano, TestPlugins.delay)
        let instruments = try seqplay(["plugins", "--where", "instrument"])
        XCTAssertEqual(instruments.status, 0)
        XCTAssertTrue(instruments.standardOutput.contains("\(TestPlugins.piano)  instrument  0→2 midi  MDA Piano"))
        XCTAssertFalse(instruments.standardOutput.contains(TestPlugins.delay))
        let json = try seqplay(["plugins", "--json", "--where", "mda/Delay"])
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(list.map { $0["uri"] as? String }, [TestPlugins.delay])
        XCTAssertEqual(list.first?["hostable"] as? Bool, true)
        let one = try seqplay(["plugins", TestPlugins.delay])
        XCTAssertTrue(one.standardOutput.contains("Port 4: fx_mix  control input  \"FX Mix\"  0.0...1.0 default 0.33"))
        let unknown = try seqplay(["plugins", "urn:no-such-plugin"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.standardError.split(separator: "\n").count, 1)
    }

    /// A bundle written here (LV2_PATH): a plugin whose instantiate fails is one line and exit 1 with no
    /// output file; a plugin requiring a feature seqplay lacks is refused with one line naming both.
    func testInstantiateFailureAndMissingFeature() throws {
        let bundle = scratch.path("lv2/broken.lv2")
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        let source = scratch.path("broken.c")
        try """
        #include <lv2/core/lv2.h>
        #include <stddef.h>
        static LV2_Handle instantiate(const LV2_Descriptor *d, double rate, const char *path, const LV2_Feature *const *f) { return NULL; }
        static void connect(LV2_Handle h, uint32_t p, void *d) {}
        static void run(LV2_Handle h, uint32_t n) {}
        static void cleanup(LV2_Handle h) {}
        static const LV2_Descriptor descriptors[2] = {
            {"urn:seqplay:test:broken", instantiate, connect, NULL, run, NULL, cleanup, NULL},
            {"urn:seqplay:test:needy", instantiate, connect, NULL, run, NULL, cleanup, NULL},
        };
        LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t i) { return i < 2 ? &descriptors[i] : NULL; }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let compile = try runCommand(URL(fileURLWithPath: "/usr/bin/cc"), ["-shared", "-fPIC", "-o", bundle + "/broken.so", source])
        guard compile.status == 0 else { throw XCTSkip("no C compiler: \(compile.standardError)") }
        let ports = """
            lv2:port [ a lv2:AudioPort, lv2:InputPort ; lv2:index 0 ; lv2:symbol "in" ; lv2:name "In" ] ,
                     [ a lv2:AudioPort, lv2:OutputPort ; lv2:index 1 ; lv2:symbol "out" ; lv2:name "Out" ] .
        """
        try """
        @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
        <urn:seqplay:test:broken> a lv2:Plugin, lv2:EffectPlugin ; lv2:binary <broken.so> ; lv2:project <urn:seqplay:test> ;
            <http://usefulinc.com/ns/doap#name> "Broken" ;
        \(ports)
        <urn:seqplay:test:needy> a lv2:Plugin, lv2:EffectPlugin ; lv2:binary <broken.so> ;
            <http://usefulinc.com/ns/doap#name> "Needy" ; lv2:requiredFeature <urn:seqplay:test:telepathy> ;
        \(ports)
        """.write(toFile: bundle + "/manifest.ttl", atomically: true, encoding: .utf8)
        let environment = ["LV2_PATH": scratch.path("lv2")]
        let output = scratch.path("out.wav")
        let broken = try seqplay([TestPlugins.song, "--sf2", TestPlugins.font, "--end", "1", "--fx", "lv2:urn:seqplay:test:broken", "-o", output],
                                 environment: environment)
        XCTAssertEqual(broken.status, 1, broken.standardError)
        XCTAssertEqual(broken.standardError.split(separator: "\n").count, 1, broken.standardError)
        XCTAssertTrue(broken.standardError.contains("urn:seqplay:test:broken' failed to instantiate"), broken.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        let needy = try seqplay([TestPlugins.song, "--sf2", TestPlugins.font, "--fx", "lv2:urn:seqplay:test:needy", "-o", output],
                                environment: environment)
        XCTAssertEqual(needy.status, 64)
        XCTAssertEqual(needy.standardError.trimmingCharacters(in: .whitespacesAndNewlines),
                       "seqplay: --fx: LV2 plugin 'urn:seqplay:test:needy' requires the feature urn:seqplay:test:telepathy, which seqplay does not provide")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        let listed = try seqplay(["plugins", "--where", "unhostable"], environment: environment)
        XCTAssertTrue(listed.standardOutput.contains("urn:seqplay:test:needy"), listed.standardOutput)
    }
}
