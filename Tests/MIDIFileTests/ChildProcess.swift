import Foundation

/// Runs a program in a child process, so a crash there (libsmf abort()s) cannot take the test run down.
struct ChildProcess {
    /// How the child ended: its exit status, or the signal that killed it; `timedOut` if it was killed
    /// for running over the time limit.
    struct Outcome {
        var status: Int32
        var killedBySignal: Bool
        var timedOut: Bool
        var output: String
    }

    /// Runs `executable` with `arguments`, killing it after `timeLimit` seconds; stderr is discarded.
    static func run(_ executable: String, _ arguments: [String], timeLimit: TimeInterval = 10) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: outputFile.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? FileManager.default.removeItem(at: outputFile) }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeLimit)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus,
                       killedBySignal: process.terminationReason == .uncaughtSignal,
                       timedOut: timedOut,
                       output: (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "")
    }

    /// Runs a shell command line; its exit status and standard output.
    static func shell(_ command: String) throws -> Outcome {
        try run("/bin/sh", ["-c", command], timeLimit: 120)
    }
}
