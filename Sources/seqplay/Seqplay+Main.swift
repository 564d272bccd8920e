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
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        if arguments.first == "help", let name = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
           !configuration.subcommands.contains(where: { $0.configuration.commandName == name }) {
            CommandLineOutput.note("there is no command '\(name)'; see 'seqplay --help' for the commands")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            let status = exitCode(for: error)
            guard status == .success else {
                // One line, as every other error: what is wrong, not the whole usage.
                let message = Self.message(for: error)
                if !message.isEmpty { CommandLineOutput.note(message) }
                CommandLineOutput.finishStandardOutput()
                Foundation.exit(status.rawValue)
            }
            // --help, --version: their text goes to standard output, which is checked like any other.
            print(fullMessage(for: error))
        }
        CommandLineOutput.finishStandardOutput()
    }
}
