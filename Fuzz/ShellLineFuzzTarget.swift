// libFuzzer target for the FluidSynth shell face's line parser (ShellRequest.parse), built by
// Scripts/fuzz.sh shell. For any line (any bytes, decoded as the server decodes them), parsing must
// return (never crash or hang), give the same result twice, and a command it accepts must name a
// channel 0-15 (as the shell numbers them, and as ControlCommand does) and a font file of the line's own text.
#if canImport(Glibc)
import Glibc
#endif
import Control

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShellLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: min(size, ShellRequest.maximumLineLength)), as: UTF8.self)
    let first = ShellRequest.parse(line[...])
    guard ShellRequest.parse(line[...]) == first else { fatalError("parsing the same line twice differed: \(line)") }
    if case .success(.perform(let command)) = first {
        switch command {
        case .program(let channel, _, _), .select(let channel, _, _, _), .volume(let channel, _), .pan(let channel, _),
             .mute(let channel, _), .controlChange(let channel, _, _), .noteOn(let channel, _, _), .noteOff(let channel, _),
             .pitchBend(let channel, _):
            guard (0...15).contains(channel) else { fatalError("channel \(channel) out of 0-15 from: \(line)") }
        default: break
        }
    }
    if case .success(.load(let path, _)) = first, !line.contains(path) { fatalError("font path not from the line: \(line)") }
    return 0
}
