import ArgumentParser
import Pictures

/// Where a picture goes and how big it is: `-o FILE` (.png, .svg or .pdf), `--width`, `--height`.
struct PictureOutput: ParsableArguments {
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The picture: .png, .svg or .pdf.", valueName: "file"))
    var output: String

    @Option(help: "Width in pixels (points for PDF).")
    var width = 1600

    @Option(help: "Height in pixels (points for PDF; default 800 for roll, 300 for waveform).")
    var height: Int?

    func validate() throws {
        guard Canvas.Format(path: output) != nil else { throw ValidationError("-o \(output): the picture must end in .png, .svg or .pdf") }
        guard (100...20_000).contains(width), (100...20_000).contains(height ?? 100) else {
            throw ValidationError("--width and --height must be 100 to 20000")
        }
    }

    var format: Canvas.Format { Canvas.Format(path: output) ?? .png }
}
