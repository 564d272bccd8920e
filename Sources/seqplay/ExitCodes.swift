import ArgumentParser
import SeqplayKit

/// The command line's side of the exit statuses: the statuses and the table from library errors to them are the
/// library's (`ExitStatus`, `FailureReport`); bad command-line usage exits with ArgumentParser's
/// `ExitCode.validationFailure` (64, EX_USAGE, `ExitStatus.usage`).
extension CommandFailure {
    /// How `error` is reported, for every command: ArgumentParser's own errors and statuses as they are,
    /// the library's through `FailureReport`. `file` names the song in messages about its content; `command`
    /// is how the user repeats a live command with -o (the advice when there is no sound card).
    init(mapping error: any Error, file: String? = nil, command: String? = nil) {
        switch error {
        case let status as ExitCode: self.init(nil, ExitStatus(rawValue: status.rawValue))
        case let error as ValidationError: self.init(error.message, .usage)
        default: self = FailureReport(error, file: file, liveCommand: command)
        }
    }
}
