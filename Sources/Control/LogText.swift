/// Outside text on its way to a log line.
public enum LogText {
    /// `text` with every control character (newlines, carriage returns, escapes, DEL, C1) written as
    /// an escape (`\n`, `\r`, `\t`, `\u{1B}`): outside text (an OSC address, a path a client sent)
    /// logged this way stays on its one line and cannot forge another or drive a terminal.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
