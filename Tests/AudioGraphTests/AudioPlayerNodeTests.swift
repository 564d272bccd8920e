import AudioGraph
import XCTest

final class AudioPlayerNodeTests: XCTestCase {
    private let stereo = AudioFormat.standard

    /// A stereo buffer of `frames` frames: left counts 1, 2, 3…, right is the negative.
    private func ramp(frames: Int) -> AudioBuffer {
        let buffer = AudioBuffer(format: stereo, frameCapacity: frames)
        buffer.frameLength = frames
        for i in 0..<frames {
            buffer[0][i] = Float(i + 1)
            buffer[1][i] = -Float(i + 1)
        }
        return buffer
    }

    /// A started engine whose output is the player, straight (no mixer).
    private func engine(with player: AudioPlayerNode, maximumFrameCount: Int = 512) throws -> AudioEngine {
        let engine = try makeOfflineEngine(maximumFrameCount: maximumFrameCount, attaching: [player])
        engine.connect(player, to: engine.outputNode)
        try engine.start()
        return engine
    }

    private func render(_ engine: AudioEngine, frames: Int) throws -> AudioBuffer {
        let buffer = AudioBuffer(format: stereo, frameCapacity: frames)
        try engine.renderOffline(frames: frames, into: buffer)
        return buffer
    }

    func testABufferStartsExactlyAtItsSampleTimeInsideACycle() throws {
        let player = AudioPlayerNode()
        let engine = try engine(with: player)
        try player.scheduleBuffer(ramp(frames: 300), at: 1000)
        player.play()
        let output = try render(engine, frames: 2048)
        XCTAssertEqual(Array(output[0][0..<1000]), Array(repeating: 0, count: 1000))
        XCTAssertEqual(Array(output[0][1000..<1300]), (1...300).map(Float.init))
        XCTAssertEqual(Array(output[1][1000..<1300]), (1...300).map { -Float($0) })
        XCTAssertEqual(Array(output[0][1300...]), Array(repeating: 0, count: 748))
        XCTAssertEqual(player.scheduledCount, 0, "finished sources leave the schedule")
    }

    func testLoopsPlayTheBufferBackToBackThatManyMoreTimes() throws {
        let player = AudioPlayerNode()
        let engine = try engine(with: player, maximumFrameCount: 64)
        try player.scheduleBuffer(ramp(frames: 100), at: 10, loops: 2)
        player.play()
        let output = try render(engine, frames: 500)
        let once = (1...100).map(Float.init)
        XCTAssertEqual(Array(output[0][10..<310]), once + once + once)
        XCTAssertEqual(Array(output[0][310...]), Array(repeating: 0, count: 190))
    }

    func testLoopingForeverRunsUntilStopThenIsSilentAndUnscheduled() throws {
        let player = AudioPlayerNode()
        let engine = try engine(with: player)
        try player.scheduleBuffer(ramp(frames: 7), loops: AudioPlayerNode.loopForever)
        player.play()
        let playing = try render(engine, frames: 10_000)
        XCTAssertEqual(playing[0][9_999], Float(9_999 % 7 + 1))
        player.stop()
        XCTAssertFalse(player.isPlaying)
        let stopped = try render(engine, frames: 1024)
        XCTAssertEqual(stopped[0].max(), 0)
        XCTAssertEqual(player.scheduledCount, 0)
        player.play()
        let replayed = try render(engine, frames: 1024)
        XCTAssertEqual(replayed[0].max(), 0, "stop dropped the schedule")
    }

    func testAMonoBufferPlaysOnEveryChannelAndOverlapsSum() throws {
        let player = AudioPlayerNode()
        let engine = try engine(with: player)
        let mono = AudioBuffer(format: AudioFormat(sampleRate: 44_100, channelCount: 1), frameCapacity: 4)
        mono.frameLength = 4
        mono[0].update(repeating: 0.25)
        try player.scheduleBuffer(mono, at: 0)
        try player.scheduleBuffer(mono, at: 2)
        player.play()
        let output = try render(engine, frames: 8)
        XCTAssertEqual(Array(output[0]), [0.25, 0.25, 0.5, 0.5, 0.25, 0.25, 0, 0])
        XCTAssertEqual(Array(output[1]), Array(output[0]))
    }

    func testSourcesThePlayerCannotPlayAreRefusedWithTheRemedy() throws {
        let player = AudioPlayerNode(capacity: 1)
        let at48k = AudioBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), frameCapacity: 8)
        at48k.frameLength = 8
        XCTAssertThrowsError(try player.scheduleBuffer(at48k)) { error in
            XCTAssertEqual(error as? AudioPlayerError,
                           .sampleRateMismatch(source: "the buffer", sampleRate: 48_000, playerSampleRate: 44_100))
            XCTAssertTrue("\(error)".contains("sox in.wav -r 44100 out.wav"))
        }
        let quad = AudioBuffer(format: AudioFormat(sampleRate: 44_100, channelCount: 4), frameCapacity: 8)
        quad.frameLength = 8
        XCTAssertThrowsError(try player.scheduleBuffer(quad)) { error in
            XCTAssertTrue("\(error)".contains("ConverterNode(channelCount: 2)"))
        }
        XCTAssertThrowsError(try player.scheduleBuffer(AudioBuffer(format: stereo, frameCapacity: 8))) { error in
            XCTAssertEqual(error as? AudioPlayerError, .empty(source: "the buffer"))
        }
        try player.scheduleBuffer(ramp(frames: 8))
        XCTAssertThrowsError(try player.scheduleBuffer(ramp(frames: 8))) { error in
            XCTAssertEqual(error as? AudioPlayerError, .full(capacity: 1))
        }
    }

    func testVolumeAndPanComeFromTheMixerInput() throws {
        let player = AudioPlayerNode()
        let engine = try makeOfflineEngine(attaching: [player])
        engine.connect(player, to: engine.mainMixerNode)
        engine.mainMixerNode.setVolume(0.5, forInput: 0)
        engine.mainMixerNode.setPan(1, forInput: 0)
        try engine.start()
        try player.scheduleBuffer(ramp(frames: 10), at: 0)
        player.play()
        let output = try render(engine, frames: 10)
        XCTAssertEqual(output[0][9], 0, accuracy: 1e-6, "panned hard right: left turned down")
        XCTAssertEqual(output[1][9], -5, "right at half volume")
    }
}
