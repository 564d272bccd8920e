// libFuzzer target for the SMF reader, built by Scripts/fuzz-smf.sh. For any input the reader must
// return or throw (never crash, hang or touch memory it should not), in both modes; and a sequence it
// returns must survive write → read unchanged whenever the writer accepts it (with End of Track placed
// as the writer places it). Hangs are caught by CPU time, which other work on the machine does not
// inflate as it does libFuzzer's wall-clock -timeout.
#if canImport(Glibc)
import Glibc
#endif
import MIDIFile

/// CPU seconds one input may take, for all its reads and the write (linear reading takes well under
/// a second for the largest inputs the script allows, even under AddressSanitizer).
let cpuSecondsPerInput = 2.0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMFReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    limitingCPUTime(to: cpuSecondsPerInput, explanation: ": reading is not linear") {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        _ = try? MIDIFileReader.read(bytes: bytes, name: "fuzz.mid", mode: .strict)
        guard let read = try? MIDIFileReader.read(bytes: bytes, name: "fuzz.mid", mode: .lenient),
              let written = try? MIDIFileWriter.write(read.sequence, runningStatus: size % 2 == 0) else { return 0 }
        guard let reread = try? MIDIFileReader.read(bytes: written, name: "rewritten.mid"),
              reread.sequence.tracks == read.sequence.tracks.map({ $0.endingWithEndOfTrack() }),
              reread.sequence.format == read.sequence.format, reread.sequence.division == read.sequence.division else {
            fatalError("write → read changed the sequence")
        }
        return 0
    }
}
