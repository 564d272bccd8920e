#if canImport(Glibc)
import Glibc
#endif

/// Keys pressed on standard input, read without waiting: on a terminal each key counts as pressed
/// (raw mode, no echo; the terminal is restored by `restore()`); from a pipe each byte is a key.
public final class TerminalKeys {
    private var savedTerminal: termios?
    private var inputEnded = false

    public init() {
        savedTerminal = Terminal.enterRawMode()
    }

    /// The next key pressed, if one is waiting (never waits).
    public func nextKey() -> Character? {
        guard !inputEnded else { return nil }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return nil }
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else {
            inputEnded = true
            return nil
        }
        return Character(Unicode.Scalar(byte))
    }

    /// Puts the terminal back as it was.
    public func restore() {
        if let savedTerminal { Terminal.restore(savedTerminal) }
    }
}
