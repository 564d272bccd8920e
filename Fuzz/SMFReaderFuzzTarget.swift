// libFuzzer target for the SMF reader, built by Scripts/fuzz-smf.sh. For any input the reader must
// return or throw (never crash, hang or touch memory it should not), in both modes; and a sequence it
// returns must survive write → read unchanged whenever the writer accepts it (but for the End of Track
// the writer adds to a track that lacks one).
import MIDIFile

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMFReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? MIDIFileReader.read(bytes: bytes, name: "fuzz.mid", mode: .strict)
    guard let read = try? MIDIFileReader.read(bytes: bytes, name: "fuzz.mid", mode: .lenient),
          let written = try? MIDIFileWriter.write(read.sequence, runningStatus: size % 2 == 0) else { return 0 }
    guard let reread = try? MIDIFileReader.read(bytes: written, name: "rewritten.mid"),
          reread.sequence == withEndOfTrack(read.sequence) else {
        fatalError("write → read changed the sequence")
    }
    return 0
}

/// `sequence` with an End of Track added, at the last event's tick, to each track that lacks one.
func withEndOfTrack(_ sequence: MusicSequence) -> MusicSequence {
    var result = sequence
    for index in result.tracks.indices where result.tracks[index].events.last?.event != .meta(.endOfTrack) {
        let tick = result.tracks[index].events.last?.tick ?? 0
        result.tracks[index].events.append(TimedEvent(tick: tick, .meta(.endOfTrack)))
    }
    return result
}
