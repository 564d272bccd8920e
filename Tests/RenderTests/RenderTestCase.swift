import AudioFiles
import Foundation
import MIDICore
import MIDIFile
import Rendering
import TestSupport
import XCTest

/// What the render tests share: the package's files, temporary directories, small songs, and an
/// in-process render through `SongRenderer` read back from the file it wrote.
class RenderTestCase: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let clickFont = packageRoot.appendingPathComponent("SoundFonts/click.sf2").path
    static let generalMIDIFont = packageRoot.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path

    /// A shipped song (1:15.7).
    var song: String { Self.packageRoot.appendingPathComponent("Songs/beethoven-ode-to-joy.mid").path }

    /// How a run of the built `seqplay` binary ended.
    struct SeqplayRun {
        var status: Int32
        var standardOutput: Data
        var standardError: String
    }

    /// Runs the built `seqplay` with `arguments` (not on a terminal) and waits for it.
    func seqplay(_ arguments: [String], environment: [String: String] = [:]) throws -> SeqplayRun {
        let process = try ChildProcess(seqplayBinary, arguments,
                                       environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                       standardOutput: .capture, standardError: .capture)
        process.waitUntilExit()
        return SeqplayRun(status: process.terminationStatus, standardOutput: process.standardOutputData, standardError: process.standardErrorText)
    }

    /// A new empty directory, removed after the test.
    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    /// Renders `sequence` into a 32-bit float WAV and reads it back: one array per channel.
    func render(_ sequence: MusicSequence, fonts: [String], options: RenderOptions) throws -> [[Float]] {
        let path = try temporaryDirectory().appendingPathComponent("out.wav").path
        let renderer = try SongRenderer(sequence: sequence, soundFontPaths: fonts, options: options)
        let writer = try AudioFileWriter(path: path, sampleFormat: .float32, sampleRate: options.sampleRate, channelCount: 2)
        try renderer.render(to: writer)
        return try AudioFileReader(path: path).readAll()
    }

    /// Options with no reverb or chorus and a fixed tail.
    func dryOptions(tail seconds: Double = 0.5) -> RenderOptions {
        var options = RenderOptions()
        options.sampler.reverb.isEnabled = false
        options.sampler.chorus.isEnabled = false
        options.tail = .fixed(seconds: seconds)
        return options
    }

    /// One track per entry of `notes`: on channel `channel`, program `program`, the note held
    /// from tick 0 to 960 (1 s at the default 120 BPM, 480 ticks per quarter).
    func song(notes: [(channel: UInt8, program: UInt8, note: UInt8)]) -> MusicSequence {
        let tracks = notes.map { part in
            MusicTrack(events: [
                TimedEvent(tick: 0, .midi(.programChange(channel: part.channel, program: part.program))),
                TimedEvent(tick: 0, .midi(.noteOn(channel: part.channel, note: part.note, velocity: 100))),
                TimedEvent(tick: 960, .midi(.noteOff(channel: part.channel, note: part.note, velocity: 0))),
                TimedEvent(tick: 960, .meta(.endOfTrack)),
            ])
        }
        return MusicSequence(format: 1, division: .ticksPerQuarter(480), tracks: tracks)
    }
}
