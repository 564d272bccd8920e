import ALSA
import Foundation
import MIDICore
import XCTest

/// Skips the calling test unless the machine has an ALSA sequencer (run them with Scripts/test-alsa,
/// which uses the alsa-vm where the kernel has none).
func requireSequencer() throws {
    try XCTSkipUnless(FileManager.default.fileExists(atPath: SequencerClient.devicePath),
                      "\(SequencerClient.devicePath) does not exist: no ALSA sequencer here (run Scripts/test-alsa)")
}

/// True where the sequencer's timer is emulated (the alsa-vm guest, which sets ALSAVM_GUEST, or any
/// virtual machine: the CPU's hypervisor flag): its timer interrupts come late when the host is busy,
/// so delivery times measure the host there. Timing bounds hold only on real hardware.
var sequencerTimingIsEmulated: Bool {
    ProcessInfo.processInfo.environment["ALSAVM_GUEST"] != nil
        || ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" hypervisor")
}

/// Every kind of MIDIMessage, with values at the edges of their ranges.
let everyKindOfMessage: [MIDIMessage] = [
    .noteOn(channel: 0, note: 60, velocity: 100),
    .noteOn(channel: 15, note: 127, velocity: 0),
    .noteOff(channel: 9, note: 36, velocity: 64),
    .polyPressure(channel: 3, note: 61, pressure: 90),
    .controlChange(channel: 1, controller: 7, value: 127),
    .controlChange(channel: 2, controller: 64, value: 0),
    .programChange(channel: 4, program: 127),
    .channelPressure(channel: 5, pressure: 33),
    .pitchBend(channel: 6, value: 0),
    .pitchBend(channel: 6, value: 8192),
    .pitchBend(channel: 6, value: 16383),
    .systemExclusive([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),
    .systemExclusive([0xF0, 0x43] + (0..<1000).map { UInt8($0 % 128) } + [0xF7]),
    .timeCodeQuarterFrame(0x35),
    .songPosition(0),
    .songPosition(16383),
    .songSelect(5),
    .tuneRequest,
    .timingClock,
    .start,
    .continue,
    .stop,
    .activeSensing,
    .systemReset,
]

/// Reads messages from `client` until `count` have arrived or `timeout` ms pass without one.
func receive(_ count: Int, from client: SequencerClient, timeoutMilliseconds: Int = 3000) throws -> [SequencerEvent] {
    var events: [SequencerEvent] = []
    while events.count < count, let event = try client.nextEvent(timeoutMilliseconds: timeoutMilliseconds) {
        events.append(event)
    }
    return events
}
