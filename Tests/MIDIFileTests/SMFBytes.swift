/// Builds Standard MIDI File bytes for tests, chunk by chunk.
enum SMFBytes {
    static func header(format: UInt16 = 1, tracks: UInt16, division: UInt16 = 96) -> [UInt8] {
        chunk("MThd", [UInt8(format >> 8), UInt8(format & 0xFF), UInt8(tracks >> 8), UInt8(tracks & 0xFF),
                       UInt8(division >> 8), UInt8(division & 0xFF)])
    }

    /// A chunk; `declaredLength` overrides the true length of `body`.
    static func chunk(_ id: String, _ body: [UInt8], declaredLength: UInt32? = nil) -> [UInt8] {
        let length = declaredLength ?? UInt32(body.count)
        return Array(id.utf8) + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + body
    }

    /// A RIFF chunk (little-endian length).
    static func riffChunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: body.count >> $0) } + body
    }

    static func track(_ body: [UInt8], declaredLength: UInt32? = nil) -> [UInt8] {
        chunk("MTrk", body, declaredLength: declaredLength)
    }

    static let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]
    /// Note on then note off of middle C, 96 ticks apart, status written each time.
    static let note: [UInt8] = [0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x40]
}
