// Compiled into every fuzzer by Scripts/fuzz.sh, beside its target.
#if canImport(Glibc)
import Glibc
#endif

/// Runs one input through `body`, then stops the fuzzer (a crash, with the input kept) when it took more
/// than `limit` seconds of CPU: a hang, caught by CPU time, which other work on the machine does not
/// inflate as it does libFuzzer's wall-clock -timeout. `explanation` ends the message.
func limitingCPUTime(to limit: Double, explanation: String = "", _ body: () -> CInt) -> CInt {
    let cpuStart = clock()
    defer {
        let seconds = Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC)
        if seconds > limit { fatalError("one input took \(seconds) s of CPU" + explanation) }
    }
    return body()
}
