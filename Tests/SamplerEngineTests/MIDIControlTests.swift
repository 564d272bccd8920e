import AudioTestSupport
import Foundation
import Sampler
import TestSupport
import XCTest

/// The MIDI the engine plays beyond notes, each in a small song rendered by the engine and by
/// `fluidsynth -F` (dry, gain 1): sostenuto and soft pedals, RPN 1/2 tuning, channel and key pressure,
/// SoundFont NRPN generator offsets.
final class MIDIControlTests: XCTestCase {
    static let rate = SamplerEngineTests.rate
    static var font: String { SamplerEngineTests.fonts.last ?? SamplerEngineTests.shippedFont }

    /// A song: messages (status, data...) at milliseconds, and its length in milliseconds.
    struct Song {
        var events: [(ms: Int, bytes: [UInt8])]
        var lengthMs: Int
    }

    /// The song as a format-0 MIDI file at 1 tick per millisecond.
    static func midiFile(_ song: Song) -> Data {
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        var lastTick = 0
        func variableLength(_ value: Int) -> [UInt8] {
            var bytes = [UInt8(value & 0x7F)], rest = value >> 7
            while rest > 0 { bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
            return bytes
        }
        for (ms, bytes) in song.events {
            track += variableLength(ms - lastTick) + bytes
            lastTick = ms
        }
        track += variableLength(song.lengthMs - lastTick) + [0xFF, 0x2F, 0x00]
        let length = track.count
        var file: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xF4]
        file += Array("MTrk".utf8) + [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + track
        return Data(file)
    }

    /// The engine's message for MIDI bytes.
    static func message(_ bytes: [UInt8]) -> SoundFontEngine.Message? {
        let channel = Int(bytes[0] & 0x0F)
        switch bytes[0] & 0xF0 {
        case 0x90: return .noteOn(channel: channel, key: Int(bytes[1]), velocity: Int(bytes[2]))
        case 0x80: return .noteOff(channel: channel, key: Int(bytes[1]))
        case 0xA0: return .keyPressure(channel: channel, key: Int(bytes[1]), value: Int(bytes[2]))
        case 0xB0: return .controlChange(channel: channel, controller: Int(bytes[1]), value: Int(bytes[2]))
        case 0xC0: return .programChange(channel: channel, program: Int(bytes[1]))
        case 0xD0: return .channelPressure(channel: channel, value: Int(bytes[1]))
        case 0xE0: return .pitchBend(channel: channel, value: Int(bytes[1]) | Int(bytes[2]) << 7)
        default: return nil
        }
    }

    static func engineRender(_ song: Song, bank: SoundFontBank) -> [Float] {
        let engine = SoundFontEngine(bank: bank, sampleRate: Double(rate), polyphony: 256)
        let total = song.lengthMs * rate / 1000
        var left = [Float](repeating: 0, count: total), right = left
        let events = song.events.compactMap { event in message(event.bytes).map { SoundFontEngine.Event(frame: event.ms * rate / 1000, $0) } }
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in engine.render(frames: total, events: events, left: l.baseAddress!, right: r.baseAddress!) }
        }
        var output = [Float](repeating: 0, count: 2 * total)
        for i in 0..<total { output[2 * i] = left[i]; output[2 * i + 1] = right[i] }
        return output
    }

    static func fluidSynthRender(_ song: Song, scratch: ScratchDirectory) throws -> [Float] {
        try SamplerEngineTests.fluidSynthRender(font: font, midi: midiFile(song), scratch: scratch)
    }

    /// Renders `song` both ways, prints and checks level and envelope alike; returns (ours, fluidsynth's).
    @discardableResult
    func compare(_ name: String, _ song: Song, bank: SoundFontBank, scratch: ScratchDirectory) throws -> (ours: [Float], reference: [Float]) {
        let ours = Self.engineRender(song, bank: bank)
        let reference = try Self.fluidSynthRender(song, scratch: scratch)
        let frames = min(ours.count, reference.count) / 2
        let c = SamplerEngineTests.compare(ours: ours, reference: reference, start: 0, analysed: frames)
        print(String(format: "engine vs fluidsynth, %@: fluidsynth %.1f dBFS, level %+.2f dB, envelope %.2f dB", name, c.referenceLevel,
                     c.levelDifference, c.envelopeDifference))
        XCTAssertLessThan(abs(c.levelDifference), 1, name)
        XCTAssertLessThan(c.envelopeDifference, 2, name)
        return (ours, reference)
    }

    /// RMS in dB of the left/right mean over `from`..<`to` ms.
    static func level(_ signal: [Float], from: Int, to: Int) -> Double {
        let a = from * rate / 1000, b = min(to * rate / 1000, signal.count / 2)
        var sum = 0.0
        for i in a..<b { let s = Double(signal[2 * i] + signal[2 * i + 1]) / 2; sum += s * s }
        return 10 * log10(sum / Double(max(b - a, 1)) + 1e-20)
    }

    /// The fundamental between `low` and `high` Hz over one second of the left channel from `from` ms.
    static func pitch(_ signal: [Float], from: Int, low: Double, high: Double) -> Double {
        let start = from * rate / 1000
        let left = stride(from: 2 * start, to: 2 * (start + rate), by: 2).map { signal[$0] }
        return ToneAnalysis.dominantFrequency(of: left[...], sampleRate: Double(rate), lowest: low, highest: high)
    }

    func testSostenutoHoldsTheNotesSoundingWhenPressed() throws {
        let scratch = try ScratchDirectory(prefix: "engine-sostenuto")
        defer { scratch.remove() }
        let bank = try SoundFontBank(path: Self.font)
        // C4 sounds when the pedal goes down; E4 starts after; both are let go at 600 ms, the pedal at 1600 ms.
        let pedal = Song(events: [(0, [0xC0, 0]), (0, [0x90, 60, 100]), (200, [0xB0, 66, 127]), (400, [0x90, 64, 100]),
                                  (600, [0x80, 60, 0]), (600, [0x80, 64, 0]), (1600, [0xB0, 66, 0])], lengthMs: 3000)
        let (ours, reference) = try compare("sostenuto", pedal, bank: bank, scratch: scratch)
        var unpedalled = pedal
        unpedalled.events.removeAll { $0.bytes[0] == 0xB0 }
        let without = Self.engineRender(unpedalled, bank: bank)
        // Held by the pedal, C4 still sounds at 1.2–1.5 s; without it, it has faded.
        let held = Self.level(ours, from: 1200, to: 1500), released = Self.level(without, from: 1200, to: 1500)
        print(String(format: "sostenuto: 1.2-1.5 s at %.1f dB held, %.1f dB without the pedal (fluidsynth %.1f dB)",
                     held, released, Self.level(reference, from: 1200, to: 1500)))
        XCTAssertGreaterThan(held, released + 10)
    }

    func testSoftPedalAndKeyPressurePlayAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-soft-pedal")
        defer { scratch.remove() }
        let bank = try SoundFontBank(path: Self.font)
        let song = Song(events: [(0, [0xC0, 0]), (0, [0xB0, 67, 127]), (0, [0x90, 60, 100]), (300, [0xA0, 60, 120]),
                                 (600, [0x80, 60, 0]), (800, [0xB0, 67, 0]), (800, [0x90, 67, 90]), (1400, [0x80, 67, 0])], lengthMs: 2500)
        try compare("soft pedal and key pressure", song, bank: bank, scratch: scratch)
    }

    func testRPNTuningMovesThePitchAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-rpn")
        defer { scratch.remove() }
        let bank = try SoundFontBank(path: Self.font)
        // Flute A4: coarse tuning +2 semitones (RPN 2, 66), fine tuning +25 cents (RPN 1, 8192 + 2048): 440 × 2^(225/1200) Hz.
        let song = Song(events: [(0, [0xC0, 73]), (0, [0xB0, 101, 0]), (0, [0xB0, 100, 2]), (0, [0xB0, 6, 66]),
                                 (0, [0xB0, 100, 1]), (0, [0xB0, 38, 0]), (0, [0xB0, 6, 80]),
                                 (10, [0x90, 69, 100]), (1800, [0x80, 69, 0])], lengthMs: 2500)
        let (ours, reference) = try compare("RPN 1/2 tuning", song, bank: bank, scratch: scratch)
        let expected = 440 * pow(2, 225.0 / 1200)
        let ourPitch = Self.pitch(ours, from: 500, low: expected - 40, high: expected + 40)
        let theirPitch = Self.pitch(reference, from: 500, low: expected - 40, high: expected + 40)
        print(String(format: "RPN tuning: engine %.2f Hz, fluidsynth %.2f Hz, expected %.2f Hz", ourPitch, theirPitch, expected))
        XCTAssertEqual(ourPitch, theirPitch, accuracy: 0.5)
        XCTAssertEqual(ourPitch, expected, accuracy: 1.5)
    }

    func testChannelPressureAddsVibratoAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-pressure")
        defer { scratch.remove() }
        let bank = try SoundFontBank(path: Self.font)
        let song = Song(events: [(0, [0xC0, 73]), (0, [0x90, 69, 100]), (500, [0xD0, 127]), (2000, [0x80, 69, 0])], lengthMs: 2600)
        try compare("channel pressure", song, bank: bank, scratch: scratch)
    }

    func testNRPNGeneratorOffsetsActAsInFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-nrpn")
        defer { scratch.remove() }
        let bank = try SoundFontBank(path: Self.font)
        // NRPN 120/48 (initial attenuation) +100 cB on a sounding note, then NRPN 120/8 (filter cutoff) −2000 cents
        // (data 8192 − 1000, scale 2) for the next note.
        func nrpn(_ ms: Int, generator: UInt8, data: Int) -> [(Int, [UInt8])] {
            [(ms, [0xB0, 99, 120]), (ms, [0xB0, 98, generator]), (ms, [0xB0, 38, UInt8(data & 0x7F)]), (ms, [0xB0, 6, UInt8(data >> 7)])]
        }
        let events: [(ms: Int, bytes: [UInt8])] = [(0, [0xC0, 0]), (0, [0x90, 60, 100])] + nrpn(500, generator: 48, data: 8192 + 100)
            + [(1000, [0x80, 60, 0])] + nrpn(1500, generator: 8, data: 8192 - 1000) + [(1600, [0x90, 67, 100]), (2400, [0x80, 67, 0])]
        let song = Song(events: events, lengthMs: 3500)
        let (ours, _) = try compare("NRPN generator offsets", song, bank: bank, scratch: scratch)
        var plain = song
        plain.events.removeAll { $0.bytes[0] == 0xB0 }
        let without = Self.engineRender(plain, bank: bank)
        let quieter = Self.level(without, from: 600, to: 950) - Self.level(ours, from: 600, to: 950)
        print(String(format: "NRPN attenuation +100 cB: %.1f dB quieter than without", quieter))
        XCTAssertGreaterThan(quieter, 5)
    }
}
