import AudioFiles
import Pictures
import Foundation
import MIDICore
import MIDIFile
import TestSupport
import XCTest

/// Pictures checked pixel by pixel where a mistake would show, and opened by real viewers.
final class PictureTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pictures-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { [folder] in try? FileManager.default.removeItem(atPath: folder!) }
    }

    /// Four bars of 4/4 at 120 BPM (8 s): C4 (60) at bar 3 for a quarter note, C5 (72) at bar 1, full velocity.
    private func song() -> MusicSequence {
        let track = MusicTrack(events: [
            TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
            TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 72, velocity: 127))),
            TimedEvent(tick: 480, .midi(.noteOff(channel: 0, note: 72, velocity: 0))),
            TimedEvent(tick: 3840, .midi(.noteOn(channel: 0, note: 60, velocity: 127))),
            TimedEvent(tick: 4320, .midi(.noteOff(channel: 0, note: 60, velocity: 0))),
            TimedEvent(tick: 7680, .meta(.endOfTrack)),
        ])
        return MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [track])
    }

    private func rgb(_ color: Color) -> [Int] {
        [color.red, color.green, color.blue].map { Int(($0 * 255).rounded()) }
    }

    func testNoteColoursTheRectangleOfItsBarAndPitch() throws {
        var roll = PianoRoll(sequence: song(), title: "test")
        roll.width = 800
        roll.height = 400
        let path = folder + "/roll.png"
        try roll.draw(to: path, format: .png)
        let image = try PNGImage(path: path)
        XCTAssertEqual(image.width, 800)
        XCTAssertEqual(image.height, 400)
        XCTAssertEqual(roll.keys, 59...73)

        let plot = roll.plotArea
        let rowHeight = plot.height / 15
        func x(_ seconds: Double) -> Double { plot.x + seconds / 8 * plot.width }
        func y(_ key: Int) -> Double { plot.y + Double(73 - key) * rowHeight }
        func pixel(_ px: Double, _ py: Double) -> [Int] {
            let p = image.pixel(x: Int(px), y: Int(py))
            return [p.red, p.green, p.blue]
        }
        let noteColour = rgb(PianoRoll.color(ofGroup: 0))
        // Bar 3 starts at 4 s; the note lasts half a second, one row high.
        XCTAssertEqual(pixel(x(4.25), y(60) + rowHeight / 2), noteColour)
        XCTAssertEqual(pixel(x(4.02), y(60) + 2), noteColour)
        XCTAssertEqual(pixel(x(4.48), y(60) + rowHeight - 2), noteColour)
        XCTAssertEqual(pixel(x(0.25), y(72) + rowHeight / 2), noteColour)
        // Just outside it, and an empty bar (bar 2, E4 row: a white key): background.
        XCTAssertEqual(pixel(x(4.25), y(61) + rowHeight / 2), [244, 244, 244])  // C#4 row, a black key's stripe
        XCTAssertEqual(pixel(x(4.25), y(59) + rowHeight / 2), rgb(PianoRoll.background))
        XCTAssertEqual(pixel(x(4.6), y(60) + rowHeight / 2), rgb(PianoRoll.background))
        XCTAssertEqual(pixel(x(2.5), y(64) + rowHeight / 2), rgb(PianoRoll.background))
        XCTAssertEqual(pixel(x(3.9), y(60) + rowHeight / 2), rgb(PianoRoll.background))
    }

    func testStartAndEndZoomIn() throws {
        var roll = PianoRoll(sequence: song(), title: "zoomed")
        roll.width = 800
        roll.height = 400
        roll.start = 4
        roll.end = 6
        let path = folder + "/zoom.png"
        try roll.draw(to: path, format: .png)
        let image = try PNGImage(path: path)
        XCTAssertEqual(roll.keys, 59...61, "only the notes in view set the keys")
        let plot = roll.plotArea
        let p = image.pixel(x: Int(plot.x + 0.125 * plot.width), y: Int(plot.y + plot.height / 2))  // 4.25 s, key 60
        XCTAssertEqual([p.red, p.green, p.blue], rgb(PianoRoll.color(ofGroup: 0)))
        let after = image.pixel(x: Int(plot.x + 0.5 * plot.width), y: Int(plot.y + plot.height / 2))  // 5 s: nothing
        XCTAssertEqual([after.red, after.green, after.blue], rgb(PianoRoll.background))
    }

    /// A roll of 100,000 notes is drawn in time linear in the notes (each note once): the colour rule,
    /// which looks at every note, was once evaluated for every note (83 s for the corpus's 36-minute
    /// album). The bound is a hang guard, far above the 0.3 s it takes.
    func testAHundredThousandNotesDrawInLinearTime() throws {
        var events: [TimedEvent] = []
        for i in 0..<100_000 {
            let tick = Int64(i) * 24, key = UInt8(36 + i % 48)
            events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: UInt8(i % 16), note: key, velocity: 100))))
            events.append(TimedEvent(tick: tick + 20, .midi(.noteOff(channel: UInt8(i % 16), note: key, velocity: 0))))
        }
        let roll = PianoRoll(sequence: MusicSequence(tracks: [MusicTrack(events: events), MusicTrack()]), title: "many")
        let start = Date()
        try roll.draw(to: folder + "/many.png", format: .png)
        let seconds = Date().timeIntervalSince(start)
        print("roll of 100,000 notes: \(String(format: "%.2f", seconds)) s")
        XCTAssertLessThan(seconds, 60)
    }

    func testSVGAndPDFOpenInRealViewers() throws {
        var roll = PianoRoll(sequence: song(), title: "viewers")
        roll.width = 640
        roll.height = 320
        try roll.draw(to: folder + "/roll.pdf", format: .pdf)
        try roll.draw(to: folder + "/roll.svg", format: .svg)
        try roll.draw(to: folder + "/roll.png", format: .png)

        let (pdfStatus, _) = try run("pdftoppm", ["-png", "-r", "72", "-singlefile", folder + "/roll.pdf", folder + "/page"])
        XCTAssertEqual(pdfStatus, 0)
        let page = try PNGImage(path: folder + "/page.png")
        XCTAssertEqual(page.width, 640)
        XCTAssertEqual(page.height, 320)
        let plot = roll.plotArea
        let note = page.pixel(x: Int(plot.x + 4.25 / 8 * plot.width), y: Int(plot.y + (73 - 60 + 0.5) * plot.height / 15))
        let expected = rgb(PianoRoll.color(ofGroup: 0))
        XCTAssertEqual(Double(abs(note.red - expected[0]) + abs(note.green - expected[1]) + abs(note.blue - expected[2])), 0, accuracy: 12,
                       "the PDF rasterised by poppler shows the note where the PNG does")
        for file in ["roll.svg", "roll.png"] {
            let (status, output) = try run("identify", [folder + "/" + file])
            XCTAssertEqual(status, 0, output)
            XCTAssertTrue(output.contains("640x320"), output)
        }
    }

    func testWaveformShowsSoundWhereThereIsSoundAndSilenceElsewhere() throws {
        let path = folder + "/tone.wav"
        let rate = 8000
        let writer = try AudioFileWriter(path: path, sampleRate: rate, channelCount: 1, maximumFramesPerWrite: rate * 2)
        var samples = [Float](repeating: 0, count: rate * 2)  // 1 s of silence, then 1 s of a 0.8 sine
        for index in rate..<rate * 2 { samples[index] = 0.8 * Float(sin(2 * Double.pi * 440 * Double(index) / Double(rate))) }
        try samples.withUnsafeBufferPointer { (buffer) throws(AudioFileError) in
            try writer.write(interleaved: buffer.baseAddress!, frameCount: rate * 2)
        }
        try writer.finish()

        var picture = try WaveformPicture(audioPath: path, width: 432, title: "tone")
        picture.height = 300
        picture.barStarts = [0, 1]
        XCTAssertEqual(picture.columns.count, 400)  // 40 frames a column
        XCTAssertEqual(picture.columns[300].maximum, 0.8, accuracy: 0.01)
        XCTAssertEqual(Double(picture.columns[300].rms), 0.8 / 2.squareRoot(), accuracy: 0.02)
        XCTAssertEqual(picture.columns[10].maximum, 0)
        let png = folder + "/wave.png"
        try picture.draw(to: png, format: .png)
        let image = try PNGImage(path: png)
        let middle = 36 + (300 - 36 - 24) / 2  // the plot's centre line
        func colour(_ x: Int, _ y: Int) -> [Int] { let p = image.pixel(x: x, y: y); return [p.red, p.green, p.blue] }
        XCTAssertEqual(colour(16 + 300, middle - 40), rgb(WaveformPicture.levelColor), "inside the RMS level")
        XCTAssertEqual(colour(16 + 300, middle - 82), rgb(WaveformPicture.peakColor), "between the level (68 px) and the peak (96 px)")
        XCTAssertEqual(colour(16 + 300, middle - 105), rgb(WaveformPicture.background), "above the peak")
        XCTAssertEqual(colour(16 + 100, middle - 40), rgb(WaveformPicture.background), "the silent first second")
    }

    /// Runs `tool` (found on PATH) to its end: its exit status, and its standard output then its standard error.
    private func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let run = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments)
        return (run.status, run.standardOutput + run.standardError)
    }
}
