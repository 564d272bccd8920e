import CJACK
import Foundation
@testable import JACK
@testable import Sessions
import MIDIFile
import Player
import XCTest

/// A song timed in 29.97 fps SMPTE frames counts its quarter note the same way everywhere: the
/// division, the tempo map's bars and beats, quantizing and the JACK timebase (which counted 29
/// frames where the others counted 30, so its ticks per beat disagreed with its own bar:beat:tick).
final class DropFrameTimebaseTests: XCTestCase {
    /// The corpus's 29.97 fps file (division E3 50: -29 fps, 80 ticks per frame) when the shared corpus
    /// is here; else the same header written by the SMF writer.
    private func dropFrameSong() throws -> MusicSequence {
        let corpus = ProcessInfo.processInfo.environment["SEQPLAY_CORPUS"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/corpus").path
        let file = URL(fileURLWithPath: corpus).appendingPathComponent("synthetic/smpte_30drop_80tpf.mid")
        if FileManager.default.fileExists(atPath: file.path) { return try MIDIFileReader.read(contentsOf: file.path).sequence }
        let track = MusicTrack(events: [TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 100))),
                                        TimedEvent(tick: 9600, .midi(.noteOff(channel: 0, note: 60, velocity: 0))),
                                        TimedEvent(tick: 9600, .meta(.endOfTrack))])
        return MusicSequence(division: .smpte(framesPerSecond: 29, ticksPerFrame: 80), tracks: [track])
    }

    func testDropFrameQuarterIsThirtyFramesEverywhere() throws {
        let song = try dropFrameSong()
        XCTAssertEqual(song.division, .smpte(framesPerSecond: 29, ticksPerFrame: 80))
        XCTAssertEqual(song.division.ticksPerQuarterNote, 2400)

        let map = TempoMap(sequence: song)
        XCTAssertEqual(map.time(atTick: 2400), ExactTime(microseconds: 1_001_000, denominator: 240)) // 30 frames: 1.001 s
        XCTAssertEqual(map.tick(at: BarBeatTick(bar: 2)), 4 * 2400) // 4/4: a bar is four 30-frame quarters

        let player = try MusicPlayer(sequence: song, sampleRate: 48_000)
        var position = JACKPosition(jack_position_t())
        position.frame = 1930 // just after tick 96 (0.04004 s), within the corpus file's 192 ticks
        SongTimebase(player: player).updatePosition(&position, state: .rolling, frameCount: 256, isNewPosition: true)
        XCTAssertEqual(position.ticksPerBeat, 2400)
        XCTAssertEqual(position.beatsPerBar, 4)
        XCTAssertEqual(position.bar, 1)
        XCTAssertEqual(position.beat, 1)
        XCTAssertEqual(position.tick, 96)
    }
}
