#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal during playback: raw keyboard input on stdin (no line buffering, no echo;
/// Ctrl-C still raises SIGINT) and a status line redrawn in place on stderr. Only made when both are
/// terminals; `restore()` puts stdin back as it was, and runs at exit too, whatever the exit path.
public final class Terminal {
    /// A key the player reacts to.
    public enum Key {
        case space, left, right, quit
    }

    nonisolated(unsafe) private static var savedSettings: termios?

    /// The terminal in raw mode, or nil when stdin or stderr is not a terminal.
    public init?() {
        guard isatty(STDERR_FILENO) == 1, let settings = Self.enterRawMode() else { return nil }
        Self.savedSettings = settings
        atexit { Terminal.restoreSavedSettings() }
    }

    /// Puts standard input, when it is a terminal, in raw mode: each key is readable as it is
    /// pressed (no line buffering, no echo, reads never wait; Ctrl-C still raises SIGINT). Returns
    /// the settings to put back with `restore(_:)`, or nil when stdin is not a terminal.
    public static func enterRawMode() -> termios? {
        var settings = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        let saved = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        return saved
    }

    /// Puts standard input back as `enterRawMode()` found it.
    public static func restore(_ settings: termios) {
        var settings = settings
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Puts stdin back as it was and ends the status line.
    public func restore() {
        Self.restoreSavedSettings()
        write("\r\u{1B}[K")
    }

    private static func restoreSavedSettings() {
        if let savedSettings { restore(savedSettings) }
    }

    /// Waits up to `milliseconds` for input and returns the keys typed (unknown keys ignored).
    public func readKeys(waitingUpTo milliseconds: Int32) -> [Key] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        guard count > 0 else { return [] }
        return Self.keys(in: bytes[..<count])
    }

    /// The keys in raw input: space, q/Q, and the arrow escape sequences ESC [ C / ESC [ D.
    public static func keys(in bytes: ArraySlice<UInt8>) -> [Key] {
        var keys: [Key] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: " "): keys.append(.space)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
            case 0x1B where index + 2 < bytes.endIndex && bytes[index + 1] == UInt8(ascii: "["):
                if bytes[index + 2] == UInt8(ascii: "C") { keys.append(.right) }
                if bytes[index + 2] == UInt8(ascii: "D") { keys.append(.left) }
                index += 2
            default: break
            }
            index += 1
        }
        return keys
    }

    /// Replaces the status line with `text`.
    public func showStatus(_ text: String) { write("\r\u{1B}[K" + text) }

    private func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
