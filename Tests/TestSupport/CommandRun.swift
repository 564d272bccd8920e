import Foundation

/// What a program a test ran did: its exit status and everything it wrote.
public struct CommandRun: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// The `seqplay` executable built beside the test bundle.
public var builtSeqplay: URL {
    #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("seqplay")
    }
    fatalError("no .xctest bundle")
    #else
    return Bundle.main.bundleURL.appendingPathComponent("seqplay")
    #endif
}

/// Runs `executable` with `arguments` (and `environment` added to this process's) to its end, reading
/// its standard output and standard error at the same time so neither pipe can fill up and stall it.
public func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    nonisolated(unsafe) var errorData = Data()
    let readingErrors = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        errorData = errors.fileHandleForReading.readDataToEndOfFile()
        readingErrors.signal()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    readingErrors.wait()
    process.waitUntilExit()
    return CommandRun(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                      standardError: String(decoding: errorData, as: UTF8.self))
}
