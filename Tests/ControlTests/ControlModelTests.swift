import AudioGraph
import Control
import Sampler
import Foundation
import TestSupport
import XCTest

/// The control model over a real sampler rendered by hand (no sound card): commands change what the
/// sampler plays and the state, subscribers get the changes in order, the state's JSON keeps its
/// field names, the state file survives damage, and the faces' parsers map lines and messages to
/// the commands the documentation gives.
final class ControlModelTests: XCTestCase {
    static let font = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SoundFonts/seqplay-gm.sf2").path

    /// A sampler in an engine rendered on a thread of the test's, as a live session's output would.
    final class Rendering: @unchecked Sendable {
        let engine = AudioEngine()
        let sampler: SamplerNode
        private let running = NSLock()
        private var stopped = false

        init() throws {
            sampler = try SamplerNode()
            try sampler.loadSoundFont(at: ControlModelTests.font)
            engine.attach(sampler)
            engine.connect(sampler, to: engine.mainMixerNode)
            try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: 48_000, channelCount: 2), maximumFrameCount: 256)
            try engine.start()
            let thread = Thread { [self] in
                while !running.withLock({ stopped }) {
                    _ = engine.renderBlock(frameCount: 256)
                    usleep(2_000)
                }
            }
            thread.start()
        }

        func stop() { running.withLock { stopped = true } }
    }

    func testCommandsChangeTheSamplerAndTheStateAndSubscribersHearOfIt() throws {
        let rendering = try Rendering()
        defer { rendering.stop() }
        let control = SoundModuleControl(samplers: [rendering.sampler])
        control.start()
        defer { control.stop() }
        let events = LockedEvents()
        let subscription = control.subscribe { events.append($0) }
        defer { subscription.cancel() }

        XCTAssertEqual(control.state.channels.map(\.channel), Array(0...15))
        XCTAssertEqual(control.state.channel(9)?.name, "Standard")
        XCTAssertEqual(control.state.channel(9)?.bank, 128)
        try control.perform(.program(channel: 2, program: 19))
        XCTAssertEqual(control.state.channel(2)?.name, "Church Organ", "in the state when perform returns")
        XCTAssertEqual(rendering.sampler.program(onChannel: 2)?.program, 19, "the sampler plays it")
        try control.perform(.volume(channel: 2, value: 90))
        try control.perform(.mute(channel: 2, muted: true))
        try control.perform(.gain(0.5))
        try control.perform(.reverb(SamplerSettings.Reverb(isEnabled: false, roomSize: 0.7)))
        XCTAssertEqual(control.state.channel(2), ChannelState(channel: 2, program: 19, bank: 0, name: "Church Organ", volume: 90, pan: 64,
                                                               mute: true, font: 1))
        XCTAssertEqual(control.state.gain, 0.5)
        let reverb = SamplerSettings.Reverb(isEnabled: false, roomSize: 0.7, damping: 0, width: 0.5, level: 0.9)
        XCTAssertEqual(control.state.reverb, reverb, "the fields not given as they were, every one given in the state")
        XCTAssertEqual(rendering.sampler.gain, 0.5)
        XCTAssertFalse(rendering.sampler.reverbEnabled)

        // Refused commands change nothing and say why in one line.
        for (command, message) in [(ControlCommand.program(channel: 16, program: 1), "no channel 17 (channels are 1-16)"),
                                   (.program(channel: 0, program: 128), "program 128 is out of range (0-127)"),
                                   (.program(channel: 0, program: 5, bank: 0), "no loaded SoundFont has bank 0 program 5"),
                                   (.gain(.nan), "gain nan is out of range (0-10)"),
                                   (.unloadFont(id: 9), "no SoundFont with id 9 is loaded"),
                                   (.playSong(path: "x.mid"), "song playback is not available here"),
                                   (.reverb(SamplerSettings.Reverb(roomSize: 0.5, width: 101)), "width 101.0 is out of range (0.0-100.0)"),
                                   (.chorus(SamplerSettings.Chorus(type: .triangle)), "changing the chorus waveform is not available here")] {
            XCTAssertThrowsError(try control.perform(command)) { XCTAssertEqual("\($0)", message) }
        }
        XCTAssertEqual(control.state.channel(0)?.program, 0)
        XCTAssertEqual(control.state.reverb, reverb)
        XCTAssertEqual(control.state.chorus, .defaults)

        // A program change arriving as MIDI (a keyboard's) reaches the state through the render thread.
        rendering.sampler.enqueue(.programChange(channel: 4, program: 40))
        let deadline = Date().addingTimeInterval(1)
        while control.state.channel(4)?.name != "Violin", Date() < deadline { usleep(2_000) }
        XCTAssertEqual(control.state.channel(4)?.name, "Violin")

        usleep(50_000)
        let seen = events.all
        XCTAssertTrue(seen.contains(.gain(0.5)))
        XCTAssertTrue(seen.contains(.reverb(reverb)))
        let channel3 = seen.compactMap { event -> ChannelState? in
            if case .channel(let state) = event, state.channel == 2 { return state }
            return nil
        }
        XCTAssertEqual(channel3.map(\.program), [19, 19, 19], "program, then volume, then mute, in order")
        XCTAssertEqual(channel3.last?.mute, true)
        XCTAssertTrue(seen.contains { if case .channel(let state) = $0 { return state.channel == 4 && state.program == 40 }; return false })
    }

    /// A shell connection that sends nothing for the idle limit is told so and closed, so idle
    /// clients cannot hold the connections; one that talks stays.
    func testIdleShellConnectionsAreClosed() throws {
        let rendering = try Rendering()
        defer { rendering.stop() }
        let control = SoundModuleControl(samplers: [rendering.sampler])
        let server = try ShellServer(control: control, endpoint: ControlEndpoint(port: 0), access: ControlAccess(allowing: []))
        server.idleLimit = 1
        server.start()
        defer { server.stop() }
        let idle = try LineClient(port: server.port), talking = try LineClient(port: server.port)
        XCTAssertEqual(idle.ask("echo hello"), "hello\n")
        for _ in 0..<6 {
            usleep(300_000)
            XCTAssertEqual(talking.ask("echo still"), "still\n")
        }
        XCTAssertEqual(idle.read(until: "closed\n", patience: 5), "idle for 1 s: closed\n")
        XCTAssertEqual(talking.ask("echo still"), "still\n")
    }

    func testTheStateJSONKeepsItsFieldNames() throws {
        let state = ControlState(fonts: [FontState(id: 1, path: "/f.sf2", name: "F", presets: [Preset(bank: 0, program: 0, name: "Piano", soundFont: SoundFontID(id: 1, path: "/f.sf2"))])])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: state.jsonData()) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["channels", "fonts", "gain", "reverb", "chorus", "inputs", "song", "recording"])
        XCTAssertTrue(object["song"] is NSNull)
        XCTAssertTrue(object["recording"] is NSNull)
        let channels = try XCTUnwrap(object["channels"] as? [[String: Any]])
        XCTAssertEqual(channels.count, 16)
        XCTAssertEqual(Set(channels[0].keys), ["channel", "program", "bank", "name", "volume", "pan", "mute", "font"])
        XCTAssertEqual(channels.map { $0["channel"] as? Int }, (1...16).map { $0 })
        XCTAssertEqual(Set(try XCTUnwrap(object["reverb"] as? [String: Any]).keys), ["enabled", "roomSize", "damping", "width", "level"])
        XCTAssertEqual(Set(try XCTUnwrap(object["chorus"] as? [String: Any]).keys), ["enabled", "voices", "level", "speed", "depth"])
        XCTAssertEqual(Set(try XCTUnwrap((object["fonts"] as? [[String: Any]])?.first).keys), ["id", "path", "name", "presets"])
        let presets = try XCTUnwrap((object["fonts"] as? [[String: Any]])?.first?["presets"] as? [[String: Any]])
        XCTAssertEqual(presets.map { Set($0.keys) }, [["bank", "program", "name"]])  // the font is the one listed under
        XCTAssertEqual(try JSONDecoder().decode(ControlState.self, from: state.jsonData()), state)
        // The effects' bytes as 0.13's ReverbState and ChorusState wrote them; the chorus's waveform is not in them.
        var triangle = state
        triangle.chorus.type = .triangle
        for json in [state.jsonData(), triangle.jsonData()].map({ String(decoding: $0, as: UTF8.self) }) {
            XCTAssertTrue(json.contains(#""reverb":{"damping":0,"enabled":true,"level":0.9,"roomSize":0.2,"width":0.5}"#), json)
            XCTAssertTrue(json.contains(#""chorus":{"depth":8,"enabled":true,"level":2,"speed":0.3,"voices":3}"#), json)
        }
        let event = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(ControlEvent.gain(0.5))) as? [String: Any])
        XCTAssertEqual(event["type"] as? String, "gain")
        XCTAssertEqual(event["gain"] as? Double, 0.5)
    }

    func testTheStateFileIsWrittenAtomicallyAndADamagedOneIsSetAside() throws {
        let scratch = try ScratchDirectory(prefix: "control-state")
        defer { scratch.remove() }
        let path = scratch.path("deep/dir/state.json")
        let file = ControlStateFile(path: path, delay: 0.05)
        guard case .missing = file.read() else { return XCTFail("no file yet") }
        var state = ControlState()
        state.gain = 0.7
        file.schedule(state)
        state.gain = 0.8
        file.schedule(state)
        file.flush()
        guard case .state(let read) = ControlStateFile(path: path).read() else { return XCTFail("not read back") }
        XCTAssertEqual(read.gain, 0.8, "the latest of a burst")
        XCTAssertEqual(try scratch.contents(), ["deep"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path("deep/dir")), ["state.json"], "no temporary left")

        // Each damaged file set aside under a name of its own, the earlier ones kept.
        let damages = ["{", "[]", "{\"channels\": [{\"channel\": 99}], \"gain\": 1}", "\u{0}\u{1}"]
        for (index, damage) in damages.enumerated() {
            try Data(damage.utf8).write(to: URL(fileURLWithPath: path))
            guard case .damaged(let reason, let moved) = ControlStateFile(path: path).read() else { return XCTFail("accepted \(damage)") }
            XCTAssertFalse(reason.isEmpty)
            XCTAssertFalse(reason.contains("\n"))
            XCTAssertEqual(moved, path + (index == 0 ? ".damaged" : ".damaged.\(index + 1)"))
            XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        }
        XCTAssertEqual(try String(contentsOfFile: path + ".damaged", encoding: .utf8), damages[0])
        XCTAssertEqual(try String(contentsOfFile: path + ".damaged.4", encoding: .utf8), damages[3])
    }

    func testShellLinesAndOSCMessagesMapToTheDocumentedCommands() {
        let lines: [(String, ShellRequest)] = [
            ("prog 0 19", .perform(.program(channel: 0, program: 19))),
            ("select 9 1 128 0", .perform(.select(channel: 9, font: 1, bank: 128, program: 0))),
            ("cc 15 7 100", .perform(.controlChange(channel: 15, controller: 7, value: 100))),
            ("noteon 0 60 100", .perform(.noteOn(channel: 0, key: 60, velocity: 100))),
            ("noteoff 0 60", .perform(.noteOff(channel: 0, key: 60))),
            ("pitch_bend 0 8192", .perform(.pitchBend(channel: 0, value: 8192))),
            ("gain 0.5", .perform(.gain(0.5))),
            ("reverb 0 off", .perform(.reverb(SamplerSettings.Reverb(isEnabled: false)))),
            ("rev_setroomsize 0.4", .perform(.reverb(SamplerSettings.Reverb(roomSize: 0.4)))),
            ("cho_set_nr 0 4", .perform(.chorus(SamplerSettings.Chorus(voices: 4)))),
            ("load /x.sf2", .load(path: "/x.sf2", bankOffset: 0)),
            ("load /x.sf2 1 10", .load(path: "/x.sf2", bankOffset: 10)),
            ("reload 1", .reload(font: 1)),
            ("unload 2", .perform(.unloadFont(id: 2))),
            ("fonts", .fonts), ("inst 1", .instruments(font: 1)), ("channels -verbose", .channels(verbose: true)),
            ("  # a comment", .nothing), ("", .nothing), ("quit", .quit),
        ]
        for (line, expected) in lines {
            XCTAssertEqual(try ShellRequest.parse(line[...]).get(), expected, line)
        }
        let messages: [(OSCMessage, OSCRequest)] = [
            (OSCMessage("/seqplay/channel/1/program", [.int32(19)]), .perform(.program(channel: 0, program: 19))),
            (OSCMessage("/seqplay/channel/2/program", [.int32(0), .int32(128)]), .perform(.program(channel: 1, program: 0, bank: 128))),
            (OSCMessage("/seqplay/channel/3/volume", [.float(1)]), .perform(.volume(channel: 2, value: 127))),
            (OSCMessage("/seqplay/channel/3/volume", [.int32(90)]), .perform(.volume(channel: 2, value: 90))),
            (OSCMessage("/seqplay/channel/4/pan", [.float(0.5)]), .perform(.pan(channel: 3, value: 64))),
            (OSCMessage("/seqplay/channel/5/mute", [.bool(true)]), .perform(.mute(channel: 4, muted: true))),
            (OSCMessage("/seqplay/channel/6/note", [.int32(60), .int32(0)]), .perform(.noteOff(channel: 5, key: 60))),
            (OSCMessage("/seqplay/gain", [.float(0.5)]), .perform(.gain(0.5))),
            (OSCMessage("/seqplay/reverb", [.int32(1)]), .perform(.reverb(SamplerSettings.Reverb(isEnabled: true)))),
            (OSCMessage("/seqplay/panic"), .perform(.panic)),
            (OSCMessage("/seqplay/state"), .state(replyPort: nil)),
            (OSCMessage("/seqplay/subscribe", [.int32(9001)]), .subscribe(replyPort: 9001)),
        ]
        for (message, expected) in messages {
            XCTAssertEqual(try OSCRequest.parse(message).get(), expected, message.path)
        }
        for hostile in [OSCMessage("/seqplay/channel/1/volume", [.float(2)]), OSCMessage("/seqplay/channel/x/program", [.int32(1)]),
                        OSCMessage("/seqplay/gain", [.string("loud")]), OSCMessage("/seqplay/gain"), OSCMessage("/elsewhere"),
                        OSCMessage("/seqplay/channel/1/program", [.float(.infinity)]), OSCMessage("/seqplay/subscribe", [.int32(70000)])] {
            XCTAssertThrowsError(try OSCRequest.parse(hostile).get(), hostile.path)
        }
    }
}

/// Events collected from the control's delivery queue.
final class LockedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ControlEvent] = []
    func append(_ event: ControlEvent) { lock.withLock { events.append(event) } }
    var all: [ControlEvent] { lock.withLock { events } }
}
