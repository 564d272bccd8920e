import Foundation

/// What a program a test ran did: its exit status and everything it wrote.
public struct CommandRun: Sendable {
    /// The exit status, or the number of the signal that ended it (as Foundation's `Process` reports it).
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
    /// A signal ended it (`status` is the signal's number).
    public var killedBySignal = false
    /// It ran over the time limit and was killed.
    public var timedOut = false
}

/// The directory `swift build` put the package's products in: the test bundle's.
public var builtProductsDirectory: URL {
    #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
    }
    fatalError("no .xctest bundle")
    #else
    return Bundle.main.bundleURL
    #endif
}

/// The `seqplay` executable built beside the test bundle: the one path every test runs it by.
public var seqplayBinary: URL { builtProduct("seqplay") }

/// Another executable product of the package (`network-midi-probe`…), built beside the test bundle.
public func builtProduct(_ name: String) -> URL { builtProductsDirectory.appendingPathComponent(name) }

/// Runs `executable` with `arguments` (and `environment` added to this process's) to its end and returns
/// what it wrote. `standardInput` is its standard input (else /dev/null); past `timeLimit` seconds it is
/// killed (SIGKILL) and the run says `timedOut`. Output goes to files, so no pipe can fill up and stall it.
public func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                       standardInput: Data? = nil, timeLimit: TimeInterval? = nil) throws -> CommandRun {
    let child = try ChildProcess(executable.path, arguments,
                                 environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                 standardInput: standardInput.map { .data($0) } ?? .null, standardOutput: .capture, standardError: .capture)
    var timedOut = false
    if let timeLimit, !child.waitUntilExit(timeout: timeLimit) {
        timedOut = true
        child.signal(SIGKILL)
    }
    child.waitUntilExit()
    return CommandRun(status: child.terminationStatus, standardOutput: child.standardOutputText,
                      standardError: child.standardErrorText, killedBySignal: child.killedBySignal, timedOut: timedOut)
}

/// Runs the built `seqplay` with `arguments` to its end (see `runCommand`).
public func runSeqplay(_ arguments: [String], environment: [String: String] = [:], standardInput: Data? = nil,
                       timeLimit: TimeInterval? = nil) throws -> CommandRun {
    try runCommand(seqplayBinary, arguments, environment: environment, standardInput: standardInput, timeLimit: timeLimit)
}

/// Runs a shell command line (`/bin/sh -c`) to its end.
public func runShell(_ commandLine: String, timeLimit: TimeInterval? = nil) throws -> CommandRun {
    try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", commandLine], timeLimit: timeLimit)
}
