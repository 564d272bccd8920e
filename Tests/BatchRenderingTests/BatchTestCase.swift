import AudioFiles
import Foundation
import MIDICore
import MIDIFile
import Rendering
import TestSupport
import XCTest

/// What the batch tests share: a small corpus of MIDI files on disk, renders of a song alone to
/// compare with, and runs of the built `seqplay`.
class BatchTestCase: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generalMIDIFont = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
    static var seqplayPath: String { seqplayBinary.path }

    /// A new empty directory, removed after the test.
    func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }

    /// A song of `seconds` on several channels (drums on 10), notes of every part overlapping,
    /// reverb and chorus sends up, different for every `seed`.
    static func song(seed: Int, seconds: Int = 3) -> MusicSequence {
        let parts: [(channel: UInt8, program: UInt8)] = [(0, UInt8(seed % 8)), (1, 33), (9, 0), (3, UInt8(40 + seed % 20))]
        var tracks: [MusicTrack] = []
        for (index, part) in parts.enumerated() {
            var events: [TimedEvent] = [
                TimedEvent(tick: 0, .midi(.programChange(channel: part.channel, program: part.program))),
                TimedEvent(tick: 0, .midi(.controlChange(channel: part.channel, controller: 91, value: 90))),
                TimedEvent(tick: 0, .midi(.controlChange(channel: part.channel, controller: 93, value: 70))),
            ]
            let step: Int64 = 240 + Int64(index * 40)
            var tick: Int64 = 0
            var n = 0
            while tick < Int64(seconds) * 960 {
                let note = part.channel == 9 ? UInt8([36, 38, 42, 46][n % 4]) : UInt8(48 + (seed * 7 + n * 5 + index * 3) % 24)
                events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: part.channel, note: note, velocity: UInt8(60 + n % 60)))))
                events.append(TimedEvent(tick: tick + step * 3 / 2, .midi(.noteOff(channel: part.channel, note: note, velocity: 0))))
                tick += step
                n += 1
            }
            events.sort { $0.tick < $1.tick }
            events.append(TimedEvent(tick: tick + step * 2, .meta(.endOfTrack)))
            tracks.append(MusicTrack(events: events))
        }
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: tracks)
    }

    /// Writes `count` generated songs under `directory`, some in subdirectories; returns their
    /// paths relative to `directory`.
    @discardableResult
    func writeCorpus(in directory: String, count: Int, seconds: Int = 3) throws -> [String] {
        var written: [String] = []
        for index in 0..<count {
            let relative = index % 3 == 0 ? "song\(index).mid" : "set\(index % 3)/deeper/song\(index).mid"
            let path = (directory as NSString).appendingPathComponent(relative)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try MIDIFileWriter.write(Self.song(seed: index, seconds: seconds), to: path)
            written.append(relative)
        }
        return written
    }

    /// The bytes of `sequence` rendered alone (its own synthesizer loading the font) into a WAV of
    /// `sampleFormat`.
    func renderAlone(_ path: String, options: RenderOptions, sampleFormat: AudioSampleFormat = .int16) throws -> Data {
        let sequence = try MIDIFileReader.read(contentsOf: path).sequence
        let output = (try temporaryDirectory() as NSString).appendingPathComponent("alone.wav")
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: [Self.generalMIDIFont], options: options)
        try renderer.render(to: AudioFileWriter(path: output, sampleFormat: sampleFormat, sampleRate: options.sampleRate, channelCount: 2,
                                                expectedFrameCount: renderer.maximumFrames))
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// Whether two WAV files hold the same audio: byte for byte, or for float files (a WAV too long for
    /// RIFF is RF64, whose PEAK chunk carries the time of writing; the command line's files carry tags
    /// the library's renders have not) the same frames sample for sample.
    func sameAudio(_ a: Data, _ b: Data, float: Bool) throws -> Bool {
        if a == b { return true }
        guard float else { return false }
        let directory = try temporaryDirectory()
        try a.write(to: URL(fileURLWithPath: directory + "/a.wav"))
        try b.write(to: URL(fileURLWithPath: directory + "/b.wav"))
        return try AudioFileReader(path: directory + "/a.wav").readAll() == AudioFileReader(path: directory + "/b.wav").readAll()
    }

    /// Runs the built `seqplay` with `arguments` and `standardInput` (through `launcher`, a command
    /// such as `taskset -c 0` that runs the rest of its arguments), and waits for it.
    func seqplay(_ arguments: [String], standardInput: String? = nil, launcher: [String] = []) throws -> CommandRun {
        try runCommand(launcher.isEmpty ? seqplayBinary : URL(fileURLWithPath: "/usr/bin/env"),
                       launcher.isEmpty ? arguments : launcher + [Self.seqplayPath] + arguments,
                       standardInput: Data((standardInput ?? "").utf8))
    }

    /// Every regular file under `directory`, relative paths sorted.
    func files(under directory: String) -> [String] {
        (FileManager.default.subpaths(atPath: directory) ?? []).filter { path in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(path), isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }.sorted()
    }
}
