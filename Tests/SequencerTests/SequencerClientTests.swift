import ALSA
import MIDICore
import XCTest

/// Clients, ports, listing, address resolution and connections on the real kernel sequencer.
final class SequencerClientTests: XCTestCase {
    func testListsMidiThroughAndTheNewClientWithItsPorts() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay listing test")
        let output = try client.createPort(name: "player out", capabilities: .output)
        let input = try client.createPort(name: "synth in", capabilities: .input, types: [.midiGeneric, .synthesizer])

        let clients = client.clients()
        let through = try XCTUnwrap(clients.first { $0.id == 14 })
        XCTAssertEqual(through.name, "Midi Through")
        XCTAssertEqual(through.kind, .kernel)
        let me = try XCTUnwrap(clients.first { $0.id == client.clientID })
        XCTAssertEqual(me.name, "seqplay listing test")
        XCTAssertEqual(me.kind, .user)
        XCTAssertEqual(me.portCount, 2)
        XCTAssertGreaterThanOrEqual(client.clientID, 128)

        let ports = client.ports()
        XCTAssertEqual(ports.map(\.address), ports.map(\.address).sorted())
        let throughPort = try XCTUnwrap(ports.first { $0.address == PortAddress(client: 14, port: 0) })
        XCTAssertEqual(throughPort.name, "Midi Through Port-0")
        XCTAssertEqual(throughPort.clientName, "Midi Through")
        XCTAssertTrue(throughPort.isReadable && throughPort.isWritable)
        let mine = ports.filter { $0.address.client == client.clientID }
        XCTAssertEqual(mine.map(\.name), ["player out", "synth in"])
        XCTAssertEqual(mine.map(\.address), [output.address, input.address])
        XCTAssertTrue(mine[0].isReadable)
        XCTAssertFalse(mine[0].isWritable)
        XCTAssertTrue(mine[1].isWritable)
        XCTAssertEqual(mine[1].types, [.midiGeneric, .synthesizer])
        XCTAssertEqual(mine[1].capabilities.names, ["write", "subscribe-write"])
    }

    func testResolvesAddressesAsALSAToolsWriteThem() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay resolve test")
        let port = try client.createPort(name: "in", capabilities: .input)
        let through = PortAddress(client: 14, port: 0)
        XCTAssertEqual(try client.resolve("14:0"), through)
        XCTAssertEqual(try client.resolve("14"), through)
        XCTAssertEqual(try client.resolve("Midi Through:0"), through)
        XCTAssertEqual(try client.resolve("Midi Through"), through)
        XCTAssertEqual(try client.resolve("seqplay resolve test:0"), port.address)
        XCTAssertThrowsError(try client.resolve("No Such Synth")) { error in
            guard case .unknownPort(let address, _) = error as? SequencerError else { return XCTFail("\(error)") }
            XCTAssertEqual(address, "No Such Synth")
        }
        XCTAssertThrowsError(try client.resolve("14:9")) { error in
            XCTAssertTrue("\(error)".contains("no port 14:9 exists"), "\(error)")
        }
        XCTAssertThrowsError(try client.resolve("14:")) { error in
            XCTAssertEqual(error as? SequencerError, .invalidAddress("14:"))
        }
    }

    func testConnectsAndDisconnectsAndTheListingShowsIt() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay connect test")
        let output = try client.createPort(name: "out", capabilities: .output)
        let through = PortAddress(client: 14, port: 0)

        try client.connect(from: output.address, to: through)
        XCTAssertEqual(client.portInfo(output.address)?.connectedTo, [through])
        XCTAssertTrue(client.portInfo(through)?.connectedFrom.contains(output.address) ?? false)
        XCTAssertThrowsError(try client.connect(from: output.address, to: through)) { error in
            XCTAssertEqual(error as? SequencerError,
                           .connectionFailed(source: output.address, destination: through, reason: "already connected"))
        }

        try client.disconnect(from: output.address, to: through)
        XCTAssertEqual(client.portInfo(output.address)?.connectedTo, [])
        XCTAssertThrowsError(try client.disconnect(from: output.address, to: through)) { error in
            XCTAssertEqual(error as? SequencerError,
                           .connectionFailed(source: output.address, destination: through, reason: "not connected"))
        }
    }

    func testEveryKindOfMessageComesBackThroughMidiThroughUnchangedAndInOrder() throws {
        try requireSequencer()
        let sender = try SequencerClient(name: "seqplay sender")
        let receiver = try SequencerClient(name: "seqplay receiver")
        let output = try sender.createPort(name: "out", capabilities: .output)
        let input = try receiver.createPort(name: "in", capabilities: .input)
        let through = PortAddress(client: 14, port: 0)
        try sender.connect(from: output.address, to: through)
        try receiver.connect(from: through, to: input.address)

        for message in everyKindOfMessage {
            try sender.send(message, from: output)
        }
        let events = try receive(everyKindOfMessage.count, from: receiver)
        XCTAssertEqual(events.map(\.message), everyKindOfMessage)
        XCTAssertTrue(events.allSatisfy { $0.source == through && $0.port == input.number && $0.timestamp == nil })
        XCTAssertNil(try receiver.nextEvent(timeoutMilliseconds: 100), "nothing more arrives")
    }

    func testSendsToOnePortDirectlyAndRefusesAnUnframedSystemExclusive() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay direct test")
        let output = try client.createPort(name: "out", capabilities: .output)
        let input = try client.createPort(name: "in", capabilities: .input)
        try client.send(.controlChange(channel: 3, controller: 10, value: 20), from: output, to: .port(input.address))
        let events = try receive(1, from: client)
        XCTAssertEqual(events.map(\.message), [.controlChange(channel: 3, controller: 10, value: 20)])
        XCTAssertEqual(events.first?.source, output.address)
        XCTAssertThrowsError(try client.send(.systemExclusive([0x43, 0x10]), from: output, to: .port(input.address))) { error in
            guard case .unsendableMessage = error as? SequencerError else { return XCTFail("\(error)") }
        }
    }

    func testOutputPortDrivenAsAMIDIReceiverReachesItsSubscribers() throws {
        try requireSequencer()
        let client = try SequencerClient(name: "seqplay receiver-port test")
        let port = try SequencerOutputPort(client: client, name: "out")
        let input = try client.createPort(name: "in", capabilities: .input)
        try client.connect(from: port.port.address, to: input.address)
        let source: any MIDIReceiver = port
        let sent: [MIDIMessage] = [.programChange(channel: 0, program: 19), .noteOn(channel: 0, note: 64, velocity: 90),
                                   .pitchBend(channel: 0, value: 12000), .noteOff(channel: 0, note: 64, velocity: 0)]
        sent.forEach(source.receive)
        XCTAssertEqual(try receive(sent.count, from: client).map(\.message), sent)
        XCTAssertEqual(port.failedSendCount, 0)
    }
}
