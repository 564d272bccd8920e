import ALSA
import MIDICore
import XCTest

/// The system announce port tells a listening client about ports appearing, connections made and
/// removed, and clients leaving: what hot-plug and note release on disconnect rely on.
final class SequencerAnnouncementTests: XCTestCase {
    /// What arrives at `client` until 3 s pass without anything: announcements and MIDI messages apart.
    private func inputs(at client: SequencerClient) throws -> (announcements: [SequencerAnnouncement], messages: [MIDIMessage]) {
        var announcements: [SequencerAnnouncement] = [], messages: [MIDIMessage] = []
        while let input = try client.nextInput(timeoutMilliseconds: 3000) {
            switch input {
            case .announcement(let announcement): announcements.append(announcement)
            case .midi(let event): messages.append(event.message)
            }
        }
        return (announcements, messages)
    }

    func testPortStartConnectionsAndClientExitAreAnnounced() throws {
        try requireSequencer()
        let listener = try SequencerClient(name: "announcement listener")
        let inbox = try listener.createPort(name: "in", capabilities: .input)
        let announcePort = try listener.createPort(name: "announcements", capabilities: [.write, .noExport])
        try listener.listenToAnnouncements(at: announcePort)

        var keyboard: SequencerClient? = try SequencerClient(name: "announcement keyboard")
        let keys = try keyboard!.createPort(name: "keys", capabilities: .output)
        try keyboard!.connect(from: keys.address, to: inbox.address)
        try keyboard!.send(.noteOn(channel: 0, note: 60, velocity: 90), from: keys)
        try keyboard!.disconnect(from: keys.address, to: inbox.address)
        let keyboardID = keyboard!.clientID
        keyboard = nil

        let (seen, messages) = try inputs(at: listener)
        XCTAssertTrue(seen.contains(.clientStarted(client: keyboardID)), "\(seen)")
        XCTAssertTrue(seen.contains(.portStarted(keys.address)), "\(seen)")
        XCTAssertTrue(seen.contains(.subscribed(source: keys.address, destination: inbox.address)), "\(seen)")
        XCTAssertTrue(seen.contains(.unsubscribed(source: keys.address, destination: inbox.address)), "\(seen)")
        XCTAssertTrue(seen.contains(.clientExited(client: keyboardID)), "\(seen)")
        // MIDI arrives in the same stream, told apart from the announcements.
        XCTAssertEqual(messages, [.noteOn(channel: 0, note: 60, velocity: 90)])
    }
}
