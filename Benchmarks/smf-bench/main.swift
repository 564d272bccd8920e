// Times MIDIFileReader for Benchmarks/smf-load.sh: `smf-bench FILE [REPEATS]` reads FILE REPEATS times
// (default 5) and prints the event count and the best and median read times in milliseconds.
import Foundation
import MIDIFile

let arguments = CommandLine.arguments
guard arguments.count >= 2, let repeats = arguments.count > 2 ? Int(arguments[2]) : 5, repeats > 0 else {
    FileHandle.standardError.write(Data("usage: smf-bench FILE [REPEATS]\n".utf8))
    exit(2)
}
let path = arguments[1]
var times: [Double] = []
var events = 0
for _ in 0..<repeats {
    let start = DispatchTime.now().uptimeNanoseconds
    do {
        let result = try MIDIFileReader.read(contentsOf: path)
        events = result.sequence.tracks.reduce(0) { $0 + $1.events.count }
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
}
times.sort()
print("events=\(events) best_ms=\(String(format: "%.3f", times[0])) median_ms=\(String(format: "%.3f", times[times.count / 2]))")
