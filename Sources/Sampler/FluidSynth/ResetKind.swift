import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// The reset messages a `Synthesizer` understands.
public enum ResetKind: Sendable, CaseIterable {
    /// FluidSynth's system reset (MIDI 0xFF): all voices off, controllers and programs to defaults.
    case system
    /// General MIDI System On (F0 7E 7F 09 01 F7).
    case generalMIDI
    /// Roland GS Reset (F0 41 10 42 12 40 00 7F 00 41 F7).
    case rolandGS
    /// Yamaha XG System On (F0 43 10 4C 00 00 7E 00 F7).
    case yamahaXG

    /// The GM, GS or XG reset `body` (a SysEx message without F0/F7) is, for any device id (byte 1);
    /// nil for any other message. Does not allocate.
    static func deviceReset(_ body: UnsafeBufferPointer<UInt8>) -> ResetKind? {
        // Index loops: generic sequence iteration allocates in unoptimised builds.
        var candidate = 0
        while candidate < deviceResetBodies.count {
            let reset = deviceResetBodies[candidate]
            if reset.count == body.count {
                var offset = 0
                while offset < reset.count,
                      offset == 1 || reset[offset] == body[offset] {
                    offset += 1
                }
                if offset == reset.count { return candidate == 0 ? .generalMIDI : candidate == 1 ? .rolandGS : .yamahaXG }
            }
            candidate += 1
        }
        return nil
    }

    /// A SysEx message's bytes without their F0/F7 framing, where there is one. Does not allocate.
    static func sysExBody(of message: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        // Pointer arithmetic only: slice operations allocate in unoptimised builds.
        guard var start = message.baseAddress else { return message }
        var count = message.count
        if count > 0, start.pointee == 0xF0 { start += 1; count -= 1 }
        if count > 0, start[count - 1] == 0xF7 { count -= 1 }
        return UnsafeBufferPointer(start: start, count: count)
    }

    /// The SysEx message without F0/F7 (empty for `.system`).
    var sysExBody: [UInt8] {
        switch self {
        case .system: return []
        case .generalMIDI: return Self.deviceResetBodies[0]
        case .rolandGS: return Self.deviceResetBodies[1]
        case .yamahaXG: return Self.deviceResetBodies[2]
        }
    }

    /// GM System On, GS Reset and XG System On, without F0/F7, for device id 0x7F / 0x10.
    static let deviceResetBodies: [[UInt8]] = [
        [0x7E, 0x7F, 0x09, 0x01],
        [0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41],
        [0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00],
    ]
}
