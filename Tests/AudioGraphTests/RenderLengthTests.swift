import AudioGraph
import XCTest

/// `RenderLength`, the one until-silent rule of a song's render and an engine's render to a file:
/// blocks stop at the content's end, the tail ends with the first silent block after it (or plays
/// its fixed length), silence put in never ends it, and a seek starts it again.
final class RenderLengthTests: XCTestCase {
    /// A block of `frames` frames, each sample `level`.
    private func block(_ frames: Int, level: Float) -> AudioBuffer {
        let buffer = AudioBuffer(format: .standard, frameCapacity: frames)
        buffer.frameLength = frames
        for channel in 0..<2 { buffer[channel].update(repeating: level) }
        return buffer
    }

    /// Renders to the end with blocks of at most 512 frames, loud up to `loudUntil`, silent after it;
    /// returns each block's length.
    private func render(_ length: inout RenderLength, loudUntil: Int64) -> [Int] {
        var sizes: [Int] = []
        var position: Int64 = 0
        while let rendered = length.renderNextBlock(atMost: 512, by: { frames in
            block(frames, level: position < loudUntil ? 0.5 : 0)
        }) {
            sizes.append(rendered.frameLength)
            position += Int64(rendered.frameLength)
            XCTAssertEqual(length.renderedFrames, position)
        }
        return sizes
    }

    func testBlocksStopAtTheContentsEndAndTheTailEndsWithTheFirstSilentBlockAfterIt() {
        var length = RenderLength(contentFrames: 1000, tailFrames: 4096, stopsAtSilence: true)
        // Silent from frame 300 on: the content still plays to its end; the first tail block is silent.
        XCTAssertEqual(render(&length, loudUntil: 300), [512, 488, 512])
        XCTAssertTrue(length.isFinished)
        XCTAssertEqual(length.renderedFrames, 1512)
        XCTAssertEqual(length.nextBlockFrames(atMost: 512), 0)

        var sounding = RenderLength(contentFrames: 1000, tailFrames: 4096, stopsAtSilence: true)
        XCTAssertEqual(render(&sounding, loudUntil: 2000), [512, 488, 512, 512, 512])
        XCTAssertEqual(sounding.renderedFrames, 2536)
    }

    func testAFixedTailPlaysToItsEndAndAToneToTheLongestTail() {
        var fixed = RenderLength(contentFrames: 1000, tailFrames: 700, stopsAtSilence: false)
        XCTAssertEqual(render(&fixed, loudUntil: 0), [512, 488, 512, 188])
        XCTAssertEqual(fixed.renderedFrames, fixed.maximumFrames)

        var tone = RenderLength(contentFrames: 1000, tailFrames: 700, stopsAtSilence: true)
        XCTAssertEqual(render(&tone, loudUntil: .max), [512, 488, 512, 188])
        XCTAssertTrue(tone.isFinished)
    }

    func testSilencePutInDoesNotEndTheTailAndASeekStartsAgain() {
        var length = RenderLength(contentFrames: 512, tailFrames: 2048, stopsAtSilence: true)
        length.advance(over: block(512, level: 0.5))
        length.advance(insertedFrames: 512)
        XCTAssertFalse(length.isFinished, "silence put in is not the render's sound")
        length.advance(over: block(512, level: 0))
        XCTAssertTrue(length.isFinished)
        length.advance(over: block(512, level: 0.5))
        XCTAssertEqual(length.renderedFrames, 1536, "nothing counted once finished")

        length.move(toFrame: 100)
        XCTAssertFalse(length.isFinished)
        XCTAssertEqual(length.nextBlockFrames(atMost: 512), 412, "up to the content's end again")
        length.advance(insertedFrames: 2460)
        XCTAssertTrue(length.isFinished, "at the maximum")
    }
}
