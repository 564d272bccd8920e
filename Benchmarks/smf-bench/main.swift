// Times MIDIFileReader for Benchmarks/smf-load.sh: `smf-bench FILE [REPEATS]` reads FILE REPEATS times
// (default 5) and prints the event count and the best and median CPU time of one read in milliseconds
// (CPU time, not wall-clock, so other work on a shared machine disturbs the figures less).
import Foundation
import MIDIFile

/// CPU time this process has used, in milliseconds.
func cpuMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let repeats = arguments.count > 2 ? Int(arguments[2]) : 5, repeats > 0 else {
    FileHandle.standardError.write(Data("usage: smf-bench FILE [REPEATS]\n".utf8))
    exit(2)
}
let path = arguments[1]
var times: [Double] = []
var events = 0
for _ in 0..<repeats {
    let start = cpuMilliseconds()
    do {
        let result = try MIDIFileReader.read(contentsOf: path)
        events = result.sequence.tracks.reduce(0) { $0 + $1.events.count }
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
    times.append(cpuMilliseconds() - start)
}
times.sort()
print("events=\(events) best_ms=\(String(format: "%.3f", times[0])) median_ms=\(String(format: "%.3f", times[times.count / 2]))")
