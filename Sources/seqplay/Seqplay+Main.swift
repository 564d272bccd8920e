import ArgumentParser
import Foundation

extension Seqplay {
    /// Runs the command the arguments name, as ArgumentParser's `main` does, except that: a usage
    /// error is one line on standard error (`seqplay: --rate must be > 0 (got -1)`), `help NAME` for a
    /// command that does not exist is a usage error (64), and output that could not be written to
    /// standard output (a full disk, `> /dev/full`) is a write error (5), never a silent 0.
    static func main() {
        CommandLineLogHandler.installed
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.isEmpty {  // a newcomer's first try: the commands, not "missing <song>"
            CommandLineOutput.writeStandardError(Data((helpMessage() + "\n").utf8))
            finish(.validationFailure)
        }
        if arguments.first == "help", let name = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
           !configuration.subcommands.contains(where: { $0.configuration.commandName == name }) {
            CommandLineOutput.note("there is no command '\(name)'; see 'seqplay --help' for the commands")
            finish(.validationFailure)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error where isParserError(error) {  // usage errors, ValidationError, a thrown ExitCode, --help
            let status = exitCode(for: error)
            if status == .success {
                // --help, --version: their text goes to standard output, which is checked like any other.
                print(fullMessage(for: error))
            } else {
                // One line, as every other error: what is wrong, not the whole usage.
                let message = Self.message(for: error)
                if !message.isEmpty { CommandLineOutput.note(message) }
            }
            finish(status)
        } catch {
            // A command's failure or a library error: the one table (ExitCodes.swift) gives its line and status.
            let failure = CommandFailure(mapping: error)
            if let message = failure.message { CommandLineOutput.note(message) }
            finish(failure.status)
        }
        finish(.success)
    }

    /// The process's one way out: standard output flushed (a write lost there is status 5), then `status`.
    private static func finish(_ status: ExitCode) -> Never {
        if let failure = CommandLineOutput.finishStandardOutput() {
            if status == .success, let message = failure.message { CommandLineOutput.note(message) }
            Foundation.exit(status == .success ? failure.status.rawValue : status.rawValue)
        }
        Foundation.exit(status.rawValue)
    }

    /// Whether `error` is ArgumentParser's: a parse error (unknown flag, missing value, …), a request
    /// for help or the version, a `ValidationError` or an `ExitCode`.
    private static func isParserError(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }
}
