// libFuzzer target for the OSC face's message handling, built by Scripts/fuzz.sh osc: any datagram is
// decoded by liblo as the server decodes it (OSCServer.decode), and a message it accepts is mapped
// to a request (OSCRequest.parse) and, as a state reply would be, back to messages. Neither may crash
// or hang; a mapped program change must keep its numbers.
#if canImport(Glibc)
import Glibc
#endif
import Control

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOSCMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let datagram = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = OSCServer.decode(datagram) else { return 0 }
    switch OSCRequest.parse(message) {
    case .success(.perform(.program(let channel, let program, _))):
        guard message.path == "/seqplay/channel/\(channel + 1)/program" || message.path.hasPrefix("/seqplay/channel/"),
              message.arguments.first?.number == Double(program) else {
            fatalError("program change changed on the way: \(message)")
        }
    case .success(.perform(let command)):
        if case .gain(let gain) = command, gain.isNaN { fatalError("NaN gain accepted: \(message)") }
    case .success, .failure:
        break
    }
    _ = OSCRequest.messages(for: ChannelState(channel: 0, name: message.path))
    return 0
}
