import AudioTestSupport
import Foundation
import JACKTestSupport
import TestSupport
import XCTest

/// What the tests that run seqplay against a JACK server (jackd, or PipeWire through pw-jack)
/// share: the binary and font, running it, waiting for a port, and lining a capture up with the
/// offline render.
extension XCTestCase {
    var font: [String] { ["--sf2", "SoundFonts/seqplay-gm.sf2"] }

    var seqplayURL: URL { seqplayBinary }

    /// Runs seqplay to its end: its exit status and standard error.
    func seqplay(_ arguments: [String], environment: [String: String]?) throws -> (status: Int32, errors: String) {
        let run = try runCommand(seqplayURL, arguments, environment: environment ?? [:])
        return (run.status, run.standardError)
    }

    /// Starts `seqplay serve` with `arguments` on `server` (with `environment` added), its standard output and
    /// error captured; killed after the test if it still runs.
    func startServe(_ arguments: [String], server: JACKTestServer, environment: [String: String] = [:]) throws -> ChildProcess {
        let serve = try ChildProcess(seqplayURL.path, ["serve"] + arguments, environment: server.environment.merging(environment) { $1 },
                                     standardInput: .null, standardOutput: .capture, standardError: .capture)
        addTeardownBlock { if serve.isRunning { serve.signal(SIGKILL); serve.waitUntilExit() } }
        return serve
    }

    func waitForPort(_ port: String, server: JACKTestServer) throws {
        try waitForPort(port, environment: server.environment)
    }

    /// Waits (up to 4 s) until `jack_lsp` lists `port`; `wrapper` runs it (`pw-jack` for PipeWire).
    func waitForPort(_ port: String, environment: [String: String], wrapper: String? = nil) throws {
        for _ in 0..<200 {
            let listing = try wrapper.map { try JACKTools.run($0, ["jack_lsp", port], environment: environment) }
                ?? JACKTools.run("jack_lsp", [port], environment: environment)
            if listing.output.contains(port) { return }
            usleep(20_000)
        }
        XCTFail("\(port) did not appear")
    }

    /// Finds `expected` (per channel) in `captured`: the lag from the first onset, refined to the best
    /// match within ±64 frames, and the correlation of both channels over the expected length.
    func align(_ expected: [[Float]], in captured: [[Float]]) throws -> (lag: Int, correlation: Double) {
        let expectedOnset = try XCTUnwrap(ToneAnalysis.onset(of: expected[0][...], threshold: 1e-4))
        let capturedOnset = try XCTUnwrap(ToneAnalysis.onset(of: captured[0][...], threshold: 1e-4), "silent capture")
        let guess = capturedOnset - expectedOnset
        var best = (lag: guess, correlation: -1.0)
        for lag in max(0, guess - 64)...(guess + 64) {
            let value = correlation(expected, captured, lag: lag)
            if value > best.correlation { best = (lag, value) }
        }
        return best
    }

    /// The correlation of both channels of `expected` with `captured` from frame `lag` on.
    func correlation(_ expected: [[Float]], _ captured: [[Float]], lag: Int) -> Double {
        var sumXY = 0.0, sumXX = 0.0, sumYY = 0.0
        for channel in 0..<2 {
            let count = min(expected[channel].count, captured[channel].count - lag)
            for frame in 0..<count {
                let x = Double(expected[channel][frame]), y = Double(captured[channel][frame + lag])
                sumXY += x * y
                sumXX += x * x
                sumYY += y * y
            }
        }
        return sumXY / max(1e-12, (sumXX * sumYY).squareRoot())
    }
}
