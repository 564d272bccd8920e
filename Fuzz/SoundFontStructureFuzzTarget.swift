// libFuzzer target for the SoundFont structural check (`SoundFontStructure`, which the sampler runs
// before FluidSynth sees a file) and the preset reader behind it (`SoundFontContents`), built by
// Scripts/fuzz.sh sf2. For any input both must return or throw (never crash, hang or touch memory
// they should not); the check must give the same answer twice and accept only inputs that begin with
// a RIFF `sfbk` header no longer than the input. The input is handed over as a file, the way they
// receive it (an unlinked file in /dev/shm).
#if canImport(Glibc)
import Glibc
#endif
import SoundFontFile

/// CPU seconds one input may take (the check reads only chunk headers: microseconds per input).
let cpuSecondsPerInput = 2.0
/// One file reused for every input, unlinked at once and named by its /proc path.
let descriptor: Int32 = {
    let name = "/dev/shm/seqplay-fuzz-\(getpid()).sf2"
    let descriptor = open(name, O_RDWR | O_CREAT | O_EXCL, 0o600)
    unlink(name)
    return descriptor
}()
let path = "/proc/self/fd/\(descriptor)"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSoundFontValidator(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    limitingCPUTime(to: cpuSecondsPerInput) {
        precondition(descriptor >= 0 && ftruncate(descriptor, 0) == 0 && pwrite(descriptor, data, size, 0) == size)
        let first = Result { () throws(SoundFontError) in try SoundFontStructure(path: path) }.map { _ in true }
        let second = Result { () throws(SoundFontError) in try SoundFontStructure(path: path) }.map { _ in true }
        switch (first, second) {
        case (.success, .success):
            _ = try? SoundFontContents(path: path)
            let bytes = UnsafeBufferPointer(start: data, count: size)
            let declared = size >= 8 ? Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24 : 0
            guard size >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("sfbk".utf8),
                  declared + 8 <= size else { fatalError("accepted a file without a whole RIFF sfbk header") }
        case (.failure(let a), .failure(let b)) where a == b:
            break
        default:
            fatalError("two checks of the same bytes disagree: \(first) / \(second)")
        }
        return 0
    }
}
