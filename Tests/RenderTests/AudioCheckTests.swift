import AudioTestSupport
import Foundation
import MIDIFile
import Player
import Rendering
import XCTest

/// Checks on the rendered audio itself: pitch, transpose, mute, loop and tail length.
final class AudioCheckTests: RenderTestCase {
    private let flute: UInt8 = 73
    private let sampleRate = 44_100.0

    /// The fundamental of a steady stretch (0.3 s to 0.8 s) of the left channel, searched between
    /// `lowest` and `highest` Hz.
    private func fundamental(_ audio: [[Float]], lowest: Double, highest: Double) -> Double {
        ToneAnalysis.dominantFrequency(of: audio[0][13_230..<35_280], sampleRate: sampleRate, lowest: lowest, highest: highest)
    }

    func testA4RendersA440HzFundamental() throws {
        let audio = try render(song(notes: [(0, flute, 69)]), fonts: [Self.generalMIDIFont], options: dryOptions())
        let frequency = fundamental(audio, lowest: 200, highest: 1_000)
        print("A4 fundamental: \(frequency) Hz")
        XCTAssertEqual(frequency, 440, accuracy: 1)
    }

    func testTransposeUpAnOctaveDoublesTheFundamental() throws {
        var options = dryOptions()
        options.song.transpose = 12
        let audio = try render(song(notes: [(0, flute, 69)]), fonts: [Self.generalMIDIFont], options: options)
        let frequency = fundamental(audio, lowest: 200, highest: 1_000)
        print("A4 transposed +12: \(frequency) Hz")
        XCTAssertEqual(frequency, 880, accuracy: 2)
    }

    func testMutingATrackSilencesIt() throws {
        // Track 0 plays A4 on channel 1, track 1 plays E5 on channel 2.
        let sequence = song(notes: [(0, flute, 69), (1, flute, 76)])
        let both = try render(sequence, fonts: [Self.generalMIDIFont], options: dryOptions())
        var options = dryOptions()
        options.song.mutedTracks = [1]
        let muted = try render(sequence, fonts: [Self.generalMIDIFont], options: options)
        options.song.mutedTracks = [0, 1]
        let silent = try render(sequence, fonts: [Self.generalMIDIFont], options: options)

        XCTAssertEqual(fundamental(muted, lowest: 200, highest: 1_000), 440, accuracy: 1, "the unmuted A4 still sounds")
        XCTAssertGreaterThan(energy(at: 659.26, in: both), 100 * energy(at: 659.26, in: muted), "E5 is gone when its track is muted")
        XCTAssertGreaterThan(ToneAnalysis.peak(of: both[0][...]), 0.01)
        XCTAssertEqual(silent.flatMap { $0 }.map(abs).max(), 0, "muting every track leaves digital silence")
    }

    func testMutingAChannelSilencesIt() throws {
        var options = dryOptions()
        options.song.mutedChannels = [0]
        let audio = try render(song(notes: [(0, flute, 69)]), fonts: [Self.generalMIDIFont], options: options)
        XCTAssertEqual(audio.flatMap { $0 }.map(abs).max(), 0)
    }

    func testLoopCountTwoDoublesTheLength() throws {
        let sequence = song(notes: [(0, flute, 69)])
        var options = dryOptions(tail: 0)
        let once = try render(sequence, fonts: [Self.generalMIDIFont], options: options)
        options.song.loop = LoopRegion(from: .tick(0), to: .tick(960), count: 2)
        let twice = try render(sequence, fonts: [Self.generalMIDIFont], options: options)
        XCTAssertEqual(once[0].count, 44_100)
        XCTAssertEqual(twice[0].count, 2 * once[0].count)
        // The second pass sounds the note again.
        XCTAssertEqual(ToneAnalysis.dominantFrequency(of: twice[0][57_330..<79_380], sampleRate: sampleRate, lowest: 200, highest: 1_000),
                       440, accuracy: 1)
    }

    func testFixedTailAddsExactlyThatLength() throws {
        let audio = try render(song(notes: [(0, flute, 69)]), fonts: [Self.generalMIDIFont], options: dryOptions(tail: 1.25))
        XCTAssertEqual(audio[0].count, 44_100 + 55_125)
    }

    func testDefaultTailStopsWhenTheOutputFallsSilent() throws {
        var options = dryOptions()
        options.tail = RenderOptions.defaultTail
        let audio = try render(song(notes: [(0, flute, 69)]), fonts: [Self.generalMIDIFont], options: options)
        let tail = audio[0].count - 44_100
        print("default tail after a released flute note: \(tail) frames")
        XCTAssertGreaterThan(tail, 0, "the release is kept")
        XCTAssertLessThan(tail, 3 * 44_100, "stopped before the 3 s limit")
        XCTAssertLessThan(ToneAnalysis.peak(of: audio[0].suffix(512)), RenderOptions.silenceThreshold)
        XCTAssertGreaterThan(ToneAnalysis.peak(of: audio[0][44_100..<44_612]), RenderOptions.silenceThreshold, "the tail starts with sound")
    }

    /// Energy of the left channel at `frequency` (Hann-windowed DFT bin over 0.3 s to 0.8 s).
    private func energy(at frequency: Double, in audio: [[Float]]) -> Double {
        let samples = audio[0][13_230..<35_280]
        var re = 0.0, im = 0.0
        for (offset, sample) in samples.enumerated() {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(offset) / Double(samples.count - 1))
            let phase = 2 * Double.pi * frequency * Double(offset) / sampleRate
            re += Double(sample) * window * cos(phase)
            im -= Double(sample) * window * sin(phase)
        }
        return re * re + im * im
    }
}
