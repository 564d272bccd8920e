import Foundation
import MIDICore
import MIDIFile
import XCTest

/// Temporary folders, songs written for a test, and the corpus.
enum LibraryFixtures {
    /// $SEQPLAY_CORPUS, else ../shared/corpus beside the package.
    static let corpus = ProcessInfo.processInfo.environment["SEQPLAY_CORPUS"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus").path

    static func temporaryFolder(_ test: XCTestCase) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("medialib-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// A one-bar-per-`bars` song: a conductor track (title, tempo, time and key signature, a marker),
    /// then one track per program with a note per bar at `key`.
    static func song(title: String, bpm: Double = 120, signature: (Int, Int) = (4, 4), key: (sharps: Int, minor: Bool) = (0, false),
                     programs: [(channel: UInt8, program: UInt8)] = [(0, 0)], bars: Int = 2, notePitch: UInt8 = 60,
                     marker: String? = nil, lyric: String? = nil, format: Int = 1) -> MusicSequence {
        let ppq: Int64 = 480
        let barTicks = ppq * 4 * Int64(signature.0) / Int64(signature.1)
        var conductor: [TimedEvent] = [
            TimedEvent(tick: 0, .meta(.text(.trackName, Array(title.utf8)))),
            TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: UInt32(60_000_000 / bpm)))),
            TimedEvent(tick: 0, .meta(.timeSignature(numerator: UInt8(signature.0), denominatorPower: UInt8(signature.1.trailingZeroBitCount),
                                                     clocksPerClick: 24, thirtySecondsPerQuarter: 8))),
            TimedEvent(tick: 0, .meta(.keySignature(sharps: Int8(key.sharps), minor: key.minor))),
        ]
        if let marker { conductor.append(TimedEvent(tick: 0, .meta(.text(.marker, Array(marker.utf8))))) }
        if let lyric { conductor.append(TimedEvent(tick: 0, .meta(.text(.lyric, Array(lyric.utf8))))) }
        conductor.append(TimedEvent(tick: barTicks * Int64(bars), .meta(.endOfTrack)))
        var tracks = [MusicTrack(events: conductor)]
        for (channel, program) in programs {
            var events = [TimedEvent(tick: 0, .midi(.programChange(channel: channel, program: program)))]
            for bar in 0..<Int64(bars) {
                events.append(TimedEvent(tick: bar * barTicks, .midi(.noteOn(channel: channel, note: notePitch, velocity: 100))))
                events.append(TimedEvent(tick: bar * barTicks + ppq, .midi(.noteOff(channel: channel, note: notePitch, velocity: 0))))
            }
            events.append(TimedEvent(tick: barTicks * Int64(bars), .meta(.endOfTrack)))
            tracks.append(MusicTrack(events: events))
        }
        let sequence = MusicSequence(format: 1, division: .ticksPerQuarter(UInt16(ppq)), tracks: tracks)
        return format == 0 ? sequence.mergedToFormat0() : sequence
    }

    @discardableResult
    static func write(_ sequence: MusicSequence, to path: String) throws -> String {
        try Data(try MIDIFileWriter.write(sequence)).write(to: URL(fileURLWithPath: path))
        return path
    }
}
