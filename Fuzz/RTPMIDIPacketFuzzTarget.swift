// libFuzzer target for the RTP-MIDI and session packet decoders, built by Scripts/fuzz-rtpmidi.sh.
// For any datagram, decoding must return or throw (never crash, hang or read past the datagram). An
// RTP-MIDI packet it returns must survive encode → decode unchanged; a session packet too, once its
// name has been cut to the 255 bytes the encoder sends (the cut may split a UTF-8 sequence).
#if canImport(Glibc)
import Glibc
#endif
import NetworkMIDI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTPMIDIPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let datagram = Array(UnsafeBufferPointer(start: data, count: size))[...]
    if let packet = try? SessionPacket(decoding: datagram) {
        guard let sent = try? SessionPacket(decoding: packet.encoded[...]),
              (try? SessionPacket(decoding: sent.encoded[...])) == sent else {
            fatalError("session packet changed by encode → decode: \(packet)")
        }
    }
    if let packet = try? RTPMIDIPacket(decoding: datagram) {
        guard (try? RTPMIDIPacket(decoding: packet.encoded[...])) == packet else {
            fatalError("RTP-MIDI packet changed by encode → decode: \(packet)")
        }
    }
    return 0
}
