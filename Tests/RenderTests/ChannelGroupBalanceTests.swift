import Sampler
import MIDICore
import MIDIFile
import Rendering
import XCTest

/// How a song's channels are split into groups of equal load: by what their notes cost to render
/// (voice-seconds, asked of FluidSynth), not by how many notes there are.
final class ChannelGroupBalanceTests: RenderTestCase {
    /// Channel 1: 400 notes of 0.05 s; channels 2 and 3: 20 notes of 4 s each (480 ticks = 0.5 s).
    private func song() -> MusicSequence {
        var events: [TimedEvent] = []
        for i in 0..<400 {
            let tick = Int64(i) * 48
            events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: 0, note: 60, velocity: 100))))
            events.append(TimedEvent(tick: tick + 48, .midi(.noteOff(channel: 0, note: 60, velocity: 0))))
        }
        for channel: UInt8 in [1, 2] {
            for i in 0..<20 {
                let tick = Int64(i) * 3840
                events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: 48 + UInt8(i), velocity: 90))))
                events.append(TimedEvent(tick: tick + 3840, .midi(.noteOff(channel: channel, note: 48 + UInt8(i), velocity: 0))))
            }
        }
        return MusicSequence(tracks: [MusicTrack(events: events.sorted { $0.tick < $1.tick })])
    }

    /// By note count channel 1 outweighs the other two together; by held time (80 s against 20 s)
    /// it is the lightest, and the two long channels go to different groups.
    func testNotesAreWeighedByTheirCost() {
        XCTAssertEqual(ChannelGroups.balanced(song(), count: 2).groups, [[0], [1, 2]])
        XCTAssertEqual(ChannelGroups.balanced(song(), count: 2, noteCost: { $0.heldSeconds }).groups, [[0, 1], [2]])
    }

    /// The cost is asked with the bank selects and program change in force on the note's channel.
    func testEachNoteIsCostedWithItsChannelsProgram() {
        var song = song()
        song.tracks[0].events.insert(contentsOf: [TimedEvent(tick: 0, .midi(.controlChange(channel: 1, controller: 0, value: 8))),
                                                  TimedEvent(tick: 0, .midi(.programChange(channel: 1, program: 48)))], at: 0)
        var setups: Set<[MIDIMessage]> = []
        _ = ChannelGroups.balanced(song, count: 2) { note in
            if note.channel == 1 { setups.insert(note.setup) }
            return 1
        }
        XCTAssertEqual(setups, [[.controlChange(channel: 1, controller: 0, value: 8), .programChange(channel: 1, program: 48)]])
    }

    /// FluidSynth's answer: a note of a preset starts its zones' voices, each with its release time,
    /// and leaves none playing; a program the font lacks plays FluidSynth's substitute.
    func testASynthesizerCountsTheVoicesANoteStarts() throws {
        let synthesizer = try Synthesizer()
        try synthesizer.loadSoundFont(at: Self.generalMIDIFont)
        let piano = synthesizer.noteVoices(after: [], noteOn: 0, key: 60, velocity: 100)
        XCTAssertGreaterThan(piano.voices, 0)
        XCTAssertGreaterThan(piano.releaseSeconds, 0)
        XCTAssertEqual(piano.voiceSeconds(held: 2, releaseCap: 0), Double(piano.voices) * 2)
        let clicks = try Synthesizer()
        try clicks.loadSoundFont(at: Self.clickFont)  // one sample on every key of program 0
        XCTAssertEqual(clicks.noteVoices(after: [], noteOn: 0, key: 60, velocity: 100).voices, 1)
        XCTAssertEqual(clicks.noteVoices(after: [.programChange(channel: 2, program: 40)], noteOn: 2, key: 60, velocity: 100).voices, 1)
        var left = [Float](repeating: 0, count: 64), right = left
        synthesizer.render(frameCount: 64, left: &left, right: &right)
        XCTAssertEqual(synthesizer.activeVoiceCount, 0, "the probe's voices are gone")
    }
}
