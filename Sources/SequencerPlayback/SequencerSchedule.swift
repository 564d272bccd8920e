import ALSA
import MIDICore
import MIDIFile

/// A sequence flattened for the ALSA sequencer: every MIDI and System Exclusive event of every track,
/// at its exact time from the tempo map (nanoseconds), with the port it goes to; optionally MIDI clock.
///
/// Routing follows aplaymidi: a track starts on the first destination and an SMF port meta event
/// (0x21, value n) moves it to destination n modulo their count; `trackDestinations` overrides both.
public struct SequencerSchedule: Sendable {
    /// One event to send.
    public struct Entry: Hashable, Sendable {
        public let nanoseconds: UInt64
        public let message: MIDIMessage
        public let destination: PortAddress
    }

    /// Events in time order (events at the same time keep track order, then file order).
    public let entries: [Entry]
    /// When the last event (including its track end) happens.
    public let endNanoseconds: UInt64

    public init(sequence: MusicSequence, destinations: [PortAddress], trackDestinations: [Int: PortAddress] = [:],
                midiClock: Bool = false) {
        precondition(!destinations.isEmpty, "a schedule needs at least one destination")
        let tempoMap = TempoMap(sequence: sequence)
        func nanoseconds(_ tick: Int64) -> UInt64 {
            let time = tempoMap.time(atTick: tick)
            let fraction = (time.remainder * 1000 + time.denominator / 2) / time.denominator
            return UInt64(max(0, time.microseconds)).multipliedReportingOverflow(by: 1000).partialValue + UInt64(fraction)
        }
        var timed: [(tick: Int64, order: Int, entry: Entry)] = []
        for (trackIndex, track) in sequence.tracks.enumerated() {
            var destination = trackDestinations[trackIndex] ?? destinations[0]
            for event in track.events {
                let message: MIDIMessage
                switch event.event {
                case .midi(let midi): message = midi
                case .sysEx(let bytes): message = .systemExclusive([0xF0] + bytes + (bytes.last == 0xF7 ? [] : [0xF7]))
                case .meta(.port(let port)):
                    if trackDestinations[trackIndex] == nil {
                        destination = destinations[Int(port) % destinations.count]
                    }
                    continue
                default: continue
                }
                timed.append((event.tick, timed.count, Entry(nanoseconds: nanoseconds(event.tick), message: message,
                                                              destination: destination)))
            }
        }
        let endTick = tempoMap.endTick
        if midiClock, case .ticksPerQuarter(let ppq) = sequence.division, ppq > 0 {
            var clockTicks: [Int64] = []
            var clock = 0
            while Int64(clock) * Int64(ppq) / 24 <= endTick {
                clockTicks.append(Int64(clock) * Int64(ppq) / 24)
                clock += 1
            }
            for destination in Set(destinations).sorted() {
                timed.append((-1, -1, Entry(nanoseconds: 0, message: .songPosition(0), destination: destination)))
                timed.append((-1, 0, Entry(nanoseconds: 0, message: .start, destination: destination)))
                for tick in clockTicks {
                    timed.append((tick, -1, Entry(nanoseconds: nanoseconds(tick), message: .timingClock, destination: destination)))
                }
                timed.append((endTick, Int.max, Entry(nanoseconds: nanoseconds(endTick), message: .stop, destination: destination)))
            }
        }
        timed.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        entries = timed.map(\.entry)
        endNanoseconds = max(nanoseconds(endTick), entries.last?.nanoseconds ?? 0)
    }
}
