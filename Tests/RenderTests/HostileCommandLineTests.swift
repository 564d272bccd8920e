import AudioFiles
import Foundation
import MIDIFile
import TestSupport
import XCTest

/// Hostile and careless command lines, one table: every numeric flag at 0, negative, huge, NaN and
/// infinite; every path as a directory, a device, a FIFO, a symbolic link, a read-only file, the input
/// itself, a missing directory. Each row gives its documented exit status and, when it fails, one line
/// on standard error; nothing traps, no file is left half-written, the inputs are untouched, and
/// devices and FIFOs are written through.
final class HostileCommandLineTests: RenderTestCase {
    /// One command line: `$SONG`, `$FONT` and `$DIR` stand for the test's song, SoundFont and directory.
    struct Row {
        var arguments: [String]
        var status: Int32
        /// Names (in `$DIR`) the run may create; anything else appearing is a failure.
        var creates: Set<String> = []
        /// What standard error must say (when the row fails).
        var says: String? = nil
        /// Lines on standard error when it fails (a batch adds its summary to the input's failure).
        var errorLines = 1
    }

    /// Numeric flags of the render command with the values they accept.
    static let renderFlags: [(flag: String, accepts: @Sendable (Double) -> Bool, extra: [String])] = [
        ("--sample-rate", { (8_000...96_000).contains($0) }, []),
        ("--gain", { (0...10).contains($0) }, []),
        ("--transpose", { (-127...127).contains($0) }, []),
        ("--rate", { (0.01...100).contains($0) }, []),
        ("--start", { (0...86_400).contains($0) }, []),
        ("--end", { (0...86_400).contains($0) }, []),  // 0: an empty render
        ("--loop", { (1...1000).contains($0) }, []),
        ("--loop-from", { (0..<0.5).contains($0) }, ["--loop", "2", "--loop-to", "0.5"]),
        ("--loop-to", { $0 > 0 && $0 <= 86_400 }, ["--loop", "2"]),
        ("--mute", { $0 == 0 }, []),  // the song has track 0 only
        ("--solo", { $0 == 0 }, []),
        ("--mute-channel", { (1...16).contains($0) }, []),
        ("--solo-channel", { (1...16).contains($0) }, []),
        ("--tail", { (0...86_400).contains($0) }, []),
        ("--period", { (16...8192).contains($0) }, []),
        ("--periods", { (2...64).contains($0) }, []),
        ("--network-latency", { (0...1000).contains($0) }, []),
        ("--polyphony", { (1...65_535).contains($0) }, []),
        ("--max-notes-per-key", { (1...128).contains($0) }, []),
        ("--min-velocity", { (1...127).contains($0) }, []),
        ("--reverb-room-size", { (0...1).contains($0) }, []),
        ("--reverb-damping", { (0...1).contains($0) }, []),
        ("--reverb-width", { (0...100).contains($0) }, []),
        ("--reverb-level", { (0...1).contains($0) }, []),
        ("--chorus-voices", { (0...99).contains($0) }, []),
        ("--chorus-level", { (0...10).contains($0) }, []),
        ("--chorus-speed", { (0.1...5).contains($0) }, []),
        ("--chorus-depth", { (0...256).contains($0) }, []),
        ("--threads", { (1...256).contains($0) }, []),
    ]
    static let hostileValues = ["0", "-1", "1e30", "nan", "inf", "-inf"]

    /// Numeric flags of the other commands, with values all of them refuse. They are checked before
    /// anything is opened, so they need no sequencer or network.
    static let otherCommandRows: [Row] = {
        let refused: [(command: [String], flag: String, values: [String])] = [
            (["monitor", "--network"], "--duration", ["-1", "1e30", "nan", "inf"]),
            (["monitor", "--network"], "--count", ["0", "-1", "1e30"]),
            (["monitor", "--network"], "--network-latency", ["-1", "1e30", "nan", "inf"]),
            (["serve", "--network"], "--duration", ["0", "-1", "1e30", "nan", "inf"]),
            (["serve"], "--ports", ["0", "-1", "1e30"]),
            (["serve", "--network"], "--gain", ["-1", "1e30", "nan", "inf"]),
            (["live"], "--duration", ["0", "-1", "1e30", "nan", "inf"]),
            (["live"], "--sample-rate", ["0", "-1", "1e30"]),
            (["live"], "--period", ["0", "-1"]),
            (["live"], "--periods", ["0", "-1"]),
            (["live"], "--look-ahead", ["-1", "1e30", "nan", "inf"]),
            (["live"], "--gain", ["-1", "1e30", "nan", "inf"]),
            (["serve", "--network"], "--shell", ["-1", "1e30", "nan", "65536", "host:", ":9800", "a:b:9800"]),
            (["serve", "--network"], "--osc", ["-1", "1e30", "nan", "65536", "host:", ":9000"]),
            (["live"], "--shell", ["-1", "inf", "99999"]),
            (["serve", "--network"], "--http", ["-1", "1e30", "nan", "65536", "host:", ":8080", "example.com:8080", "[::1]"]),
            (["live"], "--http", ["-1", "inf", "99999"]),
            (["serve", "--network", "--no-state"], "--state", ["", "$DIR/state.json"]),
            (["loopback"], "--duration", ["0", "-1", "1e30", "nan", "inf"]),
            (["record", "$DIR/take.mid"], "--tempo", ["0", "-1", "1e30", "nan", "inf"]),
            (["record", "$DIR/take.mid"], "--ppq", ["0", "-1", "1e30"]),
            (["record", "$DIR/take.mid"], "--duration", ["0", "-1", "1e30", "nan", "inf"]),
            (["record", "$DIR/take.mid"], "--autosave-interval", ["0", "-1", "1e30", "nan", "inf"]),
        ]
        return refused.flatMap { entry in entry.values.map { Row(arguments: entry.command + [entry.flag, $0], status: 64) } }
    }()

    static let renderRows: [Row] = {
        var rows: [Row] = []
        for (flag, accepts, extra) in renderFlags {
            for value in hostileValues {
                let ok = Double(value).map(accepts) ?? false
                rows.append(Row(arguments: ["$SONG", "--sf2", "$FONT", "-o", "$DIR/out.wav", flag, value] + extra,
                                status: ok ? 0 : 64, creates: ok ? ["out.wav"] : []))
            }
        }
        let render = ["$SONG", "--sf2", "$FONT"]
        // --quality is for lossy formats (a WAV refuses it): checked on Ogg Vorbis.
        for value in hostileValues {
            let ok = Double(value).map { (0...10).contains($0) } ?? false
            rows.append(Row(arguments: render + ["-o", "$DIR/out.ogg", "--quality", value], status: ok ? 0 : 64,
                            creates: ok ? ["out.ogg"] : []))
        }
        rows += [
            Row(arguments: render + ["-o", "$DIR/out.wav", "--transpose", "200"], status: 64),
            Row(arguments: render + ["-o", "$DIR/out.wav", "--tail", "1e12"], status: 64),
            Row(arguments: render + ["-o", "$DIR/out.wav", "--tail", "1e15"], status: 64),
            // Paths.
            Row(arguments: render + ["-o", "$DIR/folder"], status: 5),
            Row(arguments: render + ["-o", "$DIR/folder/"], status: 5),
            Row(arguments: render + ["-o", "$DIR/locked.wav"], status: 5),
            Row(arguments: render + ["-o", "$SONG", "--format", "wav"], status: 5),
            Row(arguments: render + ["-o", "$FONT", "--format", "wav"], status: 5),
            Row(arguments: render + ["-o", "$DIR/song-link.wav"], status: 5),
            Row(arguments: render + ["-o", "$DIR/hard-link.wav"], status: 5),
            Row(arguments: render + ["-o", "$DIR/missing/out.wav"], status: 5),
            Row(arguments: render + ["-o", "/dev/full"], status: 5),
            Row(arguments: render + ["-o", "/dev/null"], status: 0),
            Row(arguments: render + ["-o", "$DIR/link.wav"], status: 0, creates: ["real.wav"]),
            Row(arguments: ["$DIR/folder", "--sf2", "$FONT", "-o", "$DIR/out.wav"], status: 5),
            Row(arguments: ["/dev/null", "--sf2", "$FONT", "-o", "$DIR/out.wav"], status: 5),
            Row(arguments: ["$DIR/missing/song.mid", "--sf2", "$FONT", "-o", "$DIR/out.wav"], status: 5),
            Row(arguments: ["$SONG", "--sf2", "$DIR/folder", "-o", "$DIR/out.wav"], status: 5),
            Row(arguments: ["$SONG", "--sf2", "$DIR/missing/font.sf2", "-o", "$DIR/out.wav"], status: 5),
            Row(arguments: ["$SONG", "--sf2", "/dev/null", "-o", "$DIR/out.wav"], status: 4),
            Row(arguments: ["$SONG", "--sf2", "$SONG", "-o", "$DIR/out.wav"], status: 4),
            // --jack-transport needs -a jack and real-time playback to the sampler alone, without varispeed.
            Row(arguments: ["$SONG", "--sf2", "$FONT", "--jack-transport", "follow"], status: 64),
            Row(arguments: ["$SONG", "--sf2", "$FONT", "-a", "jack", "--jack-transport", "sideways"], status: 64),
            Row(arguments: ["$SONG", "--sf2", "$FONT", "-a", "jack", "--jack-transport", "lead", "-o", "$DIR/out.wav"], status: 64),
            Row(arguments: ["$SONG", "--sf2", "$FONT", "-a", "jack", "--jack-transport", "follow", "--fx", "varispeed:1.5"], status: 64),
            Row(arguments: ["$SONG", "--sf2", "$FONT", "-a", "jack", "--jack-transport", "follow", "--port", "14:0"], status: 64),
            Row(arguments: ["info", "$DIR/folder"], status: 5),
            Row(arguments: ["help", "nosuch"], status: 64),
            Row(arguments: ["--version"], status: 0),
        ]
        return rows
    }()

    /// LV2 plugins given wrongly to `--fx` and `--instrument` (issue 22): each one line naming what is wrong and
    /// the valid choices, exit 64, no output file. Needs mda-lv2 (Scripts/setup).
    static let lv2Rows: [Row] = {
        let render = ["$SONG", "--sf2", "$FONT", "-o", "$DIR/out.wav"]
        let delay = "http://drobilla.net/plugins/mda/Delay", piano = "http://drobilla.net/plugins/mda/Piano"
        return [
            Row(arguments: render + ["--fx", "lv2:urn:no-such-plugin"], status: 64, says: "unknown LV2 plugin 'urn:no-such-plugin'"),
            Row(arguments: render + ["--fx", "lv2:http://drobilla.net/plugins/mda/Dela"], status: 64, says: "(similar: \(delay)"),
            Row(arguments: render + ["--fx", "lv2:"], status: 64, says: "unknown LV2 plugin"),
            Row(arguments: render + ["--fx", "lv2:\(delay),nosuch=1"], status: 64, says: "unknown control port 'nosuch' (ports: l_delay, r_delay, feedback, fb_tone, fx_mix, output)"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix=2"], status: 64, says: "fx_mix '2' is outside 0.0...1.0"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix=-1"], status: 64, says: "outside 0.0...1.0"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix=1e30"], status: 64, says: "outside 0.0...1.0"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix=nan"], status: 64, says: "is not a number"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix=inf"], status: 64, says: "is not a number"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix"], status: 64, says: "is not SYMBOL=VALUE"),
            Row(arguments: render + ["--fx", "lv2:\(delay),preset=Nope"], status: 64, says: "unknown preset 'Nope' (presets: none)"),
            Row(arguments: render + ["--fx", "lv2:http://drobilla.net/plugins/mda/Leslie,preset=Nope"], status: 64, says: "(presets: "),
            Row(arguments: render + ["--fx", "lv2:\(piano)"], status: 64, says: "is an instrument, not an effect"),
            Row(arguments: render + ["--instrument", "1=lv2:\(delay)"], status: 64, says: "is an effect, not an instrument"),
            Row(arguments: render + ["--instrument", "1=lv2:urn:no-such-plugin"], status: 64, says: "unknown LV2 plugin"),
            Row(arguments: render + ["--instrument", "1=lv2:\(piano),nosuch=0"], status: 64, says: "random_detuning"),
            Row(arguments: render + ["--instrument", "1=lv2:\(piano),random_detuning=5"], status: 64, says: "outside 0.0...1.0"),
            Row(arguments: render + ["--instrument", "1=lv2:\(piano),preset=Nope"], status: 64, says: "Concert Piano"),
            Row(arguments: render + ["--instrument", "0=lv2:\(piano)"], status: 64, says: "channel '0' is not 1-16"),
            Row(arguments: render + ["--instrument", "17=lv2:\(piano)"], status: 64, says: "channel '17' is not 1-16"),
            Row(arguments: render + ["--instrument", "9-2=lv2:\(piano)"], status: 64, says: "is not 1-16 or a range"),
            Row(arguments: render + ["--instrument", "-1=lv2:\(piano)"], status: 64),
            Row(arguments: render + ["--instrument", "nan=lv2:\(piano)"], status: 64),
            Row(arguments: render + ["--instrument", "1=\(piano)"], status: 64, says: "is not CH=lv2:URI"),
            Row(arguments: render + ["--instrument", "piano"], status: 64, says: "is not CH=lv2:URI"),
            Row(arguments: render + ["--instrument", "1-3=lv2:\(piano)", "--instrument", "3=lv2:\(piano)"], status: 64,
                says: "channel 3 is given to two instruments"),
            Row(arguments: ["plugins", "urn:no-such-plugin"], status: 64, says: "unknown LV2 plugin"),
            Row(arguments: ["$SONG", "--sf2", "$FONT", "-a", "jack", "--jack-multi", "--instrument", "1=lv2:\(piano)"], status: 64,
                says: "not with --instrument"),
            Row(arguments: render + ["--fx", "lv2:\(delay),fx_mix=0.5", "--instrument", "1=lv2:\(piano)"], status: 0, creates: ["out.wav"]),
        ]
    }()

    /// Every path flag of every command that writes a file, as each path a careless user might
    /// name (see `makeWorkspace`): a directory, a device (`null.png`, `full.png`: /dev/null and
    /// /dev/full), a symbolic link (its target replaced, the link kept), a read-only file, the input
    /// itself, a missing directory. FIFOs: `testEveryOutputWritesThroughAFIFO`.
    static let pathRows: [Row] = {
        let isDirectory = "is a directory", readOnly = "is read-only", isInput = "refusing to overwrite",
            noDirectory = "does not exist", full = "No space left on device"
        var rows: [Row] = []
        // The rows of one path flag (`command` ends with it) given each careless path: `directories` and a
        // read-only file refused, each of `inputs` refused, a missing directory refused; /dev/null written
        // through, /dev/full refused for want of space and `link` followed to `real.EXT` (the file it names),
        // each of these three making `creates` (what the command writes besides).
        func carelessPaths(_ command: [String], directories: [String], readOnly lockedPath: String, inputs: [String],
                           missing: String, link: (path: String, target: String), creates: Set<String> = []) -> [Row] {
            var flagRows = directories.map { Row(arguments: command + [$0], status: 5, says: isDirectory) }
            flagRows.append(Row(arguments: command + [lockedPath], status: 5, says: readOnly))
            flagRows += inputs.map { Row(arguments: command + [$0], status: 5, says: isInput) }
            flagRows += [
                Row(arguments: command + [missing], status: 5, says: noDirectory),
                Row(arguments: command + ["$DIR/null.png"], status: 0, creates: creates),
                Row(arguments: command + ["$DIR/full.png"], status: 5, creates: creates, says: full),
                Row(arguments: command + [link.path], status: 0, creates: creates.union([link.target])),
            ]
            return flagRows
        }
        // convert -o (MIDIFileWriter).
        rows += carelessPaths(["convert", "$SONG", "-o"], directories: ["$DIR/folder"], readOnly: "$DIR/locked.wav",
                              inputs: ["$SONG", "$DIR/song-link.wav"], missing: "$DIR/missing/out.mid", link: ("$DIR/link.mid", "real.mid"))
        // roll -o, waveform -o, render --waveform (Canvas).
        let pictures: [(arguments: [String], input: String, creates: Set<String>)] = [
            (["roll", "$SONG", "-o"], "$DIR/song-link.png", []),
            (["waveform", "$DIR/audio.wav", "-o"], "$DIR/audio-link.png", []),
            (["$SONG", "--sf2", "$FONT", "-o", "$DIR/out.wav", "--waveform"], "$DIR/song-link.png", ["out.wav"]),
        ]
        for (command, input, creates) in pictures {
            // --waveform draws after the render: on /dev/full too, the audio is complete and kept.
            rows += carelessPaths(command, directories: ["$DIR/folder.png"], readOnly: "$DIR/locked.png", inputs: [input],
                                  missing: "$DIR/missing/picture.png", link: ("$DIR/link.png", "real.png"), creates: creates)
        }
        rows.append(Row(arguments: ["$SONG", "--sf2", "$FONT", "-o", "$DIR/out.wav", "--waveform", "$DIR/out.png", "--format", "wav"],
                        status: 0, creates: ["out.wav", "out.png"]))
        // render --output-dir … --manifest (AppendingOutputFile).
        let manifest = ["render", "$SONG", "--sf2", "$FONT", "--output-dir", "$DIR/out", "--manifest"]
        rows += carelessPaths(manifest, directories: ["$DIR/folder", "$DIR"], readOnly: "$DIR/locked.wav",
                              inputs: ["$SONG", "$FONT", "$DIR/song-link.wav"], missing: "$DIR/missing/manifest.jsonl",
                              link: ("$DIR/link.jsonl", "real.jsonl"), creates: ["out"])
        rows.append(Row(arguments: manifest + ["$DIR/out/manifest.jsonl"], status: 0, creates: ["out"]))  // the output directory is made first
        // --labels beside each output (`labels-*/song.labels.csv`): a failed input (exit 2) leaves no output.
        let labels = ["render", "$SONG", "--sf2", "$FONT", "--labels", "--output-dir"]
        rows += [
            Row(arguments: labels + ["$DIR/labels-folder"], status: 2, says: isDirectory, errorLines: 2),
            Row(arguments: labels + ["$DIR/labels-locked"], status: 2, says: readOnly, errorLines: 2),
            Row(arguments: labels + ["$DIR/labels-input"], status: 2, says: isInput, errorLines: 2),
            Row(arguments: labels + ["$DIR/labels-null"], status: 0),
            Row(arguments: labels + ["$DIR/labels-full"], status: 2, says: full, errorLines: 2),
            Row(arguments: labels + ["$DIR/labels-link"], status: 0),
        ]
        // record FILE: refused before the sequencer is opened, so these run without ALSA. (Devices,
        // FIFOs and links need a sequencer to record from: Scripts/test-alsa.)
        rows += [
            Row(arguments: ["record", "$DIR/folder"], status: 5, says: isDirectory),
            Row(arguments: ["record", "$DIR/locked.wav"], status: 5, says: readOnly),
            Row(arguments: ["record", "$DIR/missing/take.mid"], status: 5, says: noDirectory),
        ]
        // library --db: an SQLite file, so a device or FIFO is refused rather than written through;
        // a missing folder is refused, as for every other output (the default library's folder is made).
        let library = ["library", "add", "$SONG", "--db"]
        rows += [
            Row(arguments: library + ["$DIR/folder"], status: 5, says: isDirectory),
            Row(arguments: library + ["$DIR/locked.wav"], status: 5, says: readOnly),
            Row(arguments: library + ["$SONG"], status: 5, says: "left untouched"),
            Row(arguments: library + ["$DIR/null.png"], status: 5, says: "is a device"),
            Row(arguments: library + ["$DIR/full.png"], status: 5, says: "is a device"),
            Row(arguments: library + ["$DIR/stream.fifo"], status: 5, says: "is a FIFO"),
            Row(arguments: library + ["$DIR/link.sqlite"], status: 0, creates: ["real.sqlite"]),
            Row(arguments: library + ["$DIR/new/library.sqlite"], status: 5, says: noDirectory),
        ]
        return rows
    }()

    /// `path` as a character device like `/dev/null` (minor 3) or `/dev/full` (7): a device node
    /// when root may make one there, else a symbolic link to the real device (followed to it). A
    /// program that replaces instead of writing through makes it a regular file.
    func makeDevice(at path: String, like device: String) throws {
        var status = stat()
        XCTAssertEqual(stat(device, &status), 0)
        if getuid() == 0, mknod(path, S_IFCHR | 0o666, status.st_rdev) == 0 {
            let descriptor = open(path, O_WRONLY)
            if descriptor >= 0 { close(descriptor); return }
            unlink(path)
        }
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: device)
    }

    /// A one-note song and a copy of the click font in a fresh directory, with the paths a careless
    /// user might name: a directory, a read-only file, links to the input and to a file.
    func makeWorkspace() throws -> (directory: URL, song: String, font: String) {
        let directory = try temporaryDirectory()
        let song = directory.appendingPathComponent("song.mid").path
        let track = MusicTrack(events: [
            TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 100))),
            TimedEvent(tick: 240, .midi(.noteOff(channel: 0, note: 60, velocity: 0))),
            TimedEvent(tick: 480, .meta(.endOfTrack)),
        ])
        try MIDIFileWriter.write(MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [track]), to: song)
        let font = directory.appendingPathComponent("font.sf2").path
        try FileManager.default.copyItem(atPath: Self.clickFont, toPath: font)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder"), withIntermediateDirectories: false)
        try Data("read-only".utf8).write(to: directory.appendingPathComponent("locked.wav"))
        XCTAssertEqual(chmod(directory.appendingPathComponent("locked.wav").path, 0o444), 0)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("song-link.wav").path, withDestinationPath: "song.mid")
        XCTAssertEqual(link(song, directory.appendingPathComponent("hard-link.wav").path), 0)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link.wav").path, withDestinationPath: "real.wav")
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let writer = try AudioFileWriter(path: path("audio.wav"), sampleRate: 8_000, channelCount: 1)
        try writer.write(left: [Float](repeating: 0.25, count: 800), right: nil, frameCount: 800)
        try writer.finish()
        try FileManager.default.createDirectory(atPath: path("folder.png"), withIntermediateDirectories: false)
        try Data("read-only".utf8).write(to: URL(fileURLWithPath: path("locked.png")))
        XCTAssertEqual(chmod(path("locked.png"), 0o444), 0)
        try makeDevice(at: path("null.png"), like: "/dev/null")
        try makeDevice(at: path("full.png"), like: "/dev/full")
        XCTAssertEqual(mkfifo(path("stream.fifo"), 0o644), 0)
        for (link, target) in [("song-link.png", "song.mid"), ("audio-link.png", "audio.wav"), ("link.mid", "real.mid"),
                               ("link.png", "real.png"), ("link.jsonl", "real.jsonl"), ("link.sqlite", "real.sqlite")] {
            try FileManager.default.createSymbolicLink(atPath: path(link), withDestinationPath: target)
        }
        // Output directories whose labels file (song.labels.csv) is each of those paths.
        for name in ["folder", "locked", "input", "null", "full", "link"] {
            try FileManager.default.createDirectory(atPath: path("labels-\(name)"), withIntermediateDirectories: false)
        }
        let labels = "song.labels.csv"
        try FileManager.default.createDirectory(atPath: path("labels-folder/\(labels)"), withIntermediateDirectories: false)
        try Data("read-only".utf8).write(to: URL(fileURLWithPath: path("labels-locked/\(labels)")))
        XCTAssertEqual(chmod(path("labels-locked/\(labels)"), 0o444), 0)
        try FileManager.default.createSymbolicLink(atPath: path("labels-input/\(labels)"), withDestinationPath: "../song.mid")
        try makeDevice(at: path("labels-null/\(labels)"), like: "/dev/null")
        try makeDevice(at: path("labels-full/\(labels)"), like: "/dev/full")
        try FileManager.default.createSymbolicLink(atPath: path("labels-link/\(labels)"), withDestinationPath: "real.csv")
        return (directory, song, font)
    }

    /// Runs `row` in the workspace: its exit status, one line on standard error saying what it should,
    /// nothing trapped, nothing left behind or removed, the inputs unchanged. Returns what went wrong.
    func check(_ row: Row, in directory: URL, song: String, font: String) throws -> [String] {
        let inputs = [song, font].map { FileManager.default.contents(atPath: $0) }
        let arguments = row.arguments.map {
            $0.replacingOccurrences(of: "$SONG", with: song).replacingOccurrences(of: "$FONT", with: font)
                .replacingOccurrences(of: "$DIR", with: directory.path)
        }
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        let run = try seqplay(arguments)
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        let line = "seqplay \(row.arguments.joined(separator: " ")): exit \(run.status), stderr \(run.standardError.debugDescription)"
        var failures: [String] = []
        if run.status != row.status { failures.append("\(line) (expected exit \(row.status))") }
        if [132, 133, 134, 139].contains(run.status) || run.standardError.contains("Fatal error") {
            failures.append("\(line): trapped")
        }
        let lines = run.standardError.split(separator: "\n")
        if row.status != 0 && (lines.count != row.errorLines || !lines.allSatisfy({ $0.hasPrefix("seqplay: ") })) {
            failures.append("\(line): not \(row.errorLines) line(s) on stderr")
        }
        if let says = row.says, !run.standardError.contains(says) { failures.append("\(line): does not say '\(says)'") }
        if !after.subtracting(before).isSubset(of: row.creates) {
            failures.append("\(line): left \(after.subtracting(before).subtracting(row.creates).sorted())")
        }
        if before.subtracting(after).count > 0 { failures.append("\(line): removed \(before.subtracting(after).sorted())") }
        if [song, font].map({ FileManager.default.contents(atPath: $0) }) != inputs { failures.append("\(line): changed an input") }
        return failures
    }

    func testEveryHostileCommandLineFailsCleanly() throws {
        let (directory, song, font) = try makeWorkspace()
        var failures: [String] = []
        let rows = Self.renderRows + Self.otherCommandRows
        for row in rows {
            failures += try check(row, in: directory, song: song, font: font)
            if row.status == 0, row.creates.contains("out.wav") {
                try FileManager.default.removeItem(at: directory.appendingPathComponent("out.wav"))
            }
        }
        XCTAssertEqual(try String(contentsOfFile: directory.appendingPathComponent("locked.wav").path, encoding: .utf8), "read-only")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appendingPathComponent("link.wav").path), "real.wav")
        XCTAssertGreaterThan(try AudioFileReader(path: directory.appendingPathComponent("real.wav").path).frameCount, 0,
                             "the symbolic link's target was written")
        var status = stat()
        XCTAssertEqual(stat("/dev/null", &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
        XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(rows.count) rows:\n" + failures.joined(separator: "\n"))
    }

    func testEveryHostileLV2CommandLineFailsCleanly() throws {
        guard FileManager.default.fileExists(atPath: "/usr/lib/lv2/mda.lv2/manifest.ttl") else {
            throw XCTSkip("mda-lv2 is not installed (Scripts/setup)")
        }
        let (directory, song, font) = try makeWorkspace()
        var failures: [String] = []
        for row in Self.lv2Rows {
            failures += try check(row, in: directory, song: song, font: font)
            if row.creates.contains("out.wav") { try? FileManager.default.removeItem(at: directory.appendingPathComponent("out.wav")) }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(Self.lv2Rows.count) rows:\n" + failures.joined(separator: "\n"))
    }

    /// `pathRows`, each in a fresh workspace: besides `check`, the devices are still devices, the
    /// links still links (to a target written when the row succeeds), the read-only files as they were,
    /// and an input whose labels file failed left no output.
    func testEveryOutputPathIsWrittenSafely() throws {
        var failures: [String] = []
        for row in Self.pathRows {
            let (directory, song, font) = try makeWorkspace()
            func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
            let line = "seqplay \(row.arguments.joined(separator: " "))"
            failures += try check(row, in: directory, song: song, font: font)
            for name in ["locked.wav", "locked.png", "labels-locked/song.labels.csv"]
            where (try? String(contentsOfFile: path(name), encoding: .utf8)) != "read-only" {
                failures.append("\(line): changed \(name)")
            }
            for device in ["null.png", "full.png", "labels-null/song.labels.csv", "labels-full/song.labels.csv"] {
                var status = stat()
                if stat(path(device), &status) != 0 || status.st_mode & S_IFMT != S_IFCHR { failures.append("\(line): \(device) is no longer a device") }
            }
            for (link, target) in [("link.mid", "real.mid"), ("link.png", "real.png"), ("link.jsonl", "real.jsonl"), ("link.sqlite", "real.sqlite"),
                                   ("labels-link/song.labels.csv", "real.csv"), ("song-link.png", "song.mid"), ("audio-link.png", "audio.wav")] {
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: path(link))) != target { failures.append("\(line): \(link) is no longer a link") }
            }
            for made in row.creates where made.hasPrefix("real.") {
                let size = (try? FileManager.default.attributesOfItem(atPath: path(made))[.size] as? Int) ?? 0
                if size == 0 { failures.append("\(line): the link's target \(made) was not written") }
            }
            if row.arguments.last == "$DIR/labels-link",
               !((try? String(contentsOfFile: path("labels-link/real.csv"), encoding: .utf8))?.hasPrefix("onset_seconds") ?? false) {
                failures.append("\(line): the labels link's target was not written")
            }
            if row.status == 2, let output = row.arguments.last, FileManager.default.fileExists(atPath: path(String(output.dropFirst(5))) + "/song.wav") {
                failures.append("\(line): a failed input left its output")
            }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures.count) failures in \(Self.pathRows.count) rows:\n" + failures.joined(separator: "\n"))
    }

    /// A transpose that moves notes outside 0...127 says how many are dropped, once.
    func testNotesTransposedAwayAreCountedInOneWarning() throws {
        let (directory, song, font) = try makeWorkspace()
        let run = try seqplay([song, "--sf2", font, "-o", directory.appendingPathComponent("out.wav").path, "--transpose", "100"])
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(run.standardError, "seqplay: --transpose 100 moves 1 note outside 0...127; they are not played\n")
    }

    /// Standard error that cannot be written does not trap: the command still exits with its status.
    func testAFullStandardErrorDoesNotTrap() throws {
        let process = try ChildProcess(seqplayBinary, ["info", "/nonexistent/song.mid"], standardError: .file("/dev/full"))
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 5)
    }

    /// Makes a FIFO at `path` and reads it to its end on another thread; the function returned waits (up to
    /// 30 s) for the reader to finish and gives what it read, nil if it did not finish.
    func readerOfNewFIFO(at path: String) -> () -> Data? {
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        nonisolated(unsafe) var received = Data()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            received = FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data()
            done.signal()
        }
        return { done.wait(timeout: .now() + 30) == .success ? received : nil }
    }

    /// A FIFO's reader receives the whole render (a WAV stream), and nothing replaces the FIFO.
    func testAFIFOIsWrittenThrough() throws {
        let (directory, song, font) = try makeWorkspace()
        let fifo = directory.appendingPathComponent("stream.wav").path
        let fifoReader = readerOfNewFIFO(at: fifo)
        let run = try seqplay([song, "--sf2", font, "-o", fifo, "--tail", "0.5"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let received = try XCTUnwrap(fifoReader(), "the FIFO's reader did not finish")
        try received.write(to: directory.appendingPathComponent("copy.wav"))
        let reader = try AudioFileReader(path: directory.appendingPathComponent("copy.wav").path)
        XCTAssertEqual(reader.channelCount, 2)
        XCTAssertGreaterThan(try reader.readAll()[0].count, 44_100 / 2)
        var status = stat()
        XCTAssertEqual(stat(fifo, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "still a FIFO")
    }

    /// Every other output named as a FIFO is written through: its reader gets the whole file (a MIDI
    /// file, a picture, the manifest's lines, a labels file) and the FIFO stays a FIFO, with no
    /// temporary file beside it.
    func testEveryOutputWritesThroughAFIFO() throws {
        let (directory, song, font) = try makeWorkspace()
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        try FileManager.default.createDirectory(atPath: path("labels"), withIntermediateDirectories: false)
        let cases: [(arguments: [String], fifo: String, starts: [UInt8])] = [
            (["convert", song, "-o", path("stream.mid")], path("stream.mid"), Array("MThd".utf8)),
            (["roll", song, "-o", path("stream.png")], path("stream.png"), [0x89] + Array("PNG".utf8)),
            (["waveform", path("audio.wav"), "-o", path("stream.svg")], path("stream.svg"), Array("<?xml".utf8)),
            ([song, "--sf2", font, "-o", path("out.wav"), "--waveform", path("stream.pdf")], path("stream.pdf"), Array("%PDF".utf8)),
            (["render", song, "--sf2", font, "--output-dir", path("out"), "--manifest", path("stream.jsonl")], path("stream.jsonl"),
             Array("{".utf8)),
            (["render", song, "--sf2", font, "--output-dir", path("labels"), "--labels"], path("labels/song.labels.csv"),
             Array("onset_seconds".utf8)),
        ]
        for (arguments, fifo, starts) in cases {
            let fifoReader = readerOfNewFIFO(at: fifo)
            let run = try seqplay(arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.standardError)")
            let received = fifoReader()
            XCTAssertNotNil(received, "\(arguments): the FIFO's reader did not finish")
            XCTAssertEqual(Array((received ?? Data()).prefix(starts.count)), starts, "\(arguments)")
            var status = stat()
            XCTAssertEqual(lstat(fifo, &status), 0)
            XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "\(fifo) is still a FIFO")
            let folder = (fifo as NSString).deletingLastPathComponent
            let temporary = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }
            XCTAssertEqual(temporary, [], "\(arguments)")
        }
    }

    /// Standard output that cannot be written is a write error (5), for audio and for text alike.
    func testAFullStandardOutputIsAWriteError() throws {
        let (_, song, font) = try makeWorkspace()
        for arguments in [[song, "--sf2", font, "-o", "-"], ["info", song], ["--version"], ["convert", song, "-o", "-"]] {
            let process = try ChildProcess(seqplayBinary, arguments, standardOutput: .file("/dev/full"), standardError: .capture)
            process.waitUntilExit()
            let message = process.standardErrorText
            XCTAssertEqual(process.terminationStatus, 5, "\(arguments): \(message)")
            XCTAssertEqual(message.split(separator: "\n").count, 1, message)
        }
    }
}
