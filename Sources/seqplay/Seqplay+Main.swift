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
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)  // usage errors, ValidationError from validate(), --help, --version
        } catch {
            finishParsing(error)
        }
        do {
            try command.run()
        } catch let error where error is ValidationError || error is ExitCode || error is CleanExit || exitCode(for: error) == .success {
            finishParsing(error)  // ArgumentParser's own: a command's usage error or status, `help` (its help command throws)
        } catch {
            // A command's failure or a library error: the one table (ExitCodes.swift) gives its line and status.
            let failure = CommandFailure(mapping: error)
            if let message = failure.message { CommandLineOutput.note(message) }
            finish(ExitCode(failure.status.rawValue))
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

    /// Ends with ArgumentParser's answer to `error`: the text of --help and --version on standard output
    /// (checked like any other), else the one line of a usage error on standard error, with its status.
    private static func finishParsing(_ error: any Error) -> Never {
        let status = exitCode(for: error)
        if status == .success {
            print(fullMessage(for: error))
        } else {
            // One line, as every other error: what is wrong, not the whole usage.
            let message = Self.message(for: error)
            if !message.isEmpty { CommandLineOutput.note(message) }
        }
        finish(status)
    }
}
