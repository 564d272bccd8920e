import AudioFiles
import Foundation
import LV2
import MIDICore
import TestSupport
import XCTest

/// Plugins the tests use (Scripts/setup installs mda-lv2, dragonfly-reverb-lv2 and x42-plugins).
enum TestPlugins {
    static let delay = "http://drobilla.net/plugins/mda/Delay"
    static let ambience = "http://drobilla.net/plugins/mda/Ambience"
    static let piano = "http://drobilla.net/plugins/mda/Piano"
    static let leslie = "http://drobilla.net/plugins/mda/Leslie"
    static let room = "urn:dragonfly:room"
    static let limiter = "http://gareus.org/oss/lv2/dpl#stereo"
    static let monoLimiter = "http://gareus.org/oss/lv2/dpl#mono"
    static let nodelay = "http://gareus.org/oss/lv2/nodelay"

    static func require(_ uris: String...) throws {
        for uri in uris where LV2Plugins.plugin(uri: uri) == nil { throw XCTSkip("LV2 plugin \(uri) is not installed") }
    }

    static var font: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
    }

    static var song: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Songs/bach-prelude-c.mid").path
    }
}

/// A Standard MIDI File (format 0, 960 ticks per quarter, 120 BPM) with `notes` (tick, key, length in ticks)
/// on channel `channel` (0-based) at velocity 100.
func offGridSong(notes: [(tick: Int, key: UInt8, length: Int)], channel: UInt8 = 0) -> Data {
    func vlq(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 { bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
        return bytes
    }
    var events: [(tick: Int, order: Int, bytes: [UInt8])] = [(0, 0, [0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20])]
    for note in notes {
        events.append((note.tick, 2, [0x90 | channel, note.key, 100]))
        events.append((note.tick + note.length, 1, [0x80 | channel, note.key, 0]))
    }
    events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
    var track: [UInt8] = []
    var last = 0
    for event in events {
        track += vlq(event.tick - last) + event.bytes
        last = event.tick
    }
    track += [0, 0xFF, 0x2F, 0]
    func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    return Data(Array("MThd".utf8) + be32(6) + [0, 0, 0, 1, 0x03, 0xC0] + Array("MTrk".utf8) + be32(track.count) + track)
}

/// The channels of the audio file at `path`.
func readChannels(_ path: String) throws -> [[Float]] { try AudioFileReader(path: path).readAll() }

/// The largest absolute difference between `a` and `b` over their common length.
func maximumDifference(_ a: [Float], _ b: [Float]) -> Float {
    var most: Float = 0
    for i in 0..<min(a.count, b.count) { most = max(most, abs(a[i] - b[i])) }
    return most
}

/// The shift in -range...range (frames) at which `signal` from `start + shift` best matches `reference`
/// (`count` frames), and the largest difference there.
func bestShift(of signal: [Float], at start: Int, matching reference: ArraySlice<Float>, range: Int = 40) -> (shift: Int, difference: Float) {
    var best = (shift: 0, difference: Float.infinity)
    for shift in -range...range where start + shift >= 0 && start + shift + reference.count <= signal.count {
        var most: Float = 0
        for (i, value) in reference.enumerated() { most = max(most, abs(signal[start + shift + i] - value)) }
        if most < best.difference { best = (shift, most) }
    }
    return best
}
