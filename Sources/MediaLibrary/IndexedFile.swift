import Foundation
import MIDIFile
import SoundFontFile

/// What scanning learned about one file: its identity (size, modification time, content hash) and
/// its facts — a song's `SequenceReport`, a SoundFont's `SoundFontContents`, or why it was refused.
struct IndexedFile: Sendable {
    enum Kind: String, Sendable {
        case song
        case soundFont = "soundfont"

        /// The kind a file's extension says it is, or nil for files the library ignores.
        init?(path: String) {
            let pathExtension = (path as NSString).pathExtension.lowercased()
            if MIDIFileReader.fileExtensions.contains(pathExtension) {
                self = .song
            } else if ["sf2", "sf3"].contains(pathExtension) {
                self = .soundFont
            } else {
                return nil
            }
        }
    }

    enum Facts: Sendable {
        case song(SequenceReport)
        case soundFont(SoundFontContents)
        case refused(String)
        /// The content hash matched the index: only size and time are updated.
        case unchanged
    }

    var path: String
    var kind: Kind
    var size: Int64
    var modified: Int64
    var hash: String
    var facts: Facts

    /// Reads the file at `path` (a song's bytes read once), hashes it and gathers its facts; `knownHash` is the hash
    /// already indexed, if any, so an unchanged file is not parsed again.
    static func read(_ path: String, kind: Kind, size: Int64, modified: Int64, knownHash: String?) -> IndexedFile {
        var file = IndexedFile(path: path, kind: kind, size: size, modified: modified, hash: "", facts: .unchanged)
        switch kind {
        case .song:
            // The file read once, hashed and its report streamed from its bytes: a song of millions of notes
            // is never held as a sequence.
            do {
                try MIDIFileReader.withContents(ofFile: path) { bytes in
                    file.hash = ContentHash.of(bytes)
                    guard file.hash != knownHash else { return }
                    do throws(MIDIFileIssue) {
                        file.facts = .song(try SequenceReport(file: path, bytes: bytes))
                    } catch {
                        file.facts = .refused(error.description)
                    }
                }
            } catch {
                file.facts = .refused("\(path) cannot be read")
            }
        case .soundFont:
            guard let hash = ContentHash.ofFile(path) else {
                file.facts = .refused("\(path) cannot be read")
                return file
            }
            file.hash = hash
            guard hash != knownHash else { return file }
            do {
                file.facts = .soundFont(try SoundFontContents(path: path))
            } catch {
                file.facts = .refused(error.description)
            }
        }
        return file
    }
}

/// A 64-bit FNV-1a hash of a file's bytes, as 16 hex digits: tells whether a file whose size or time
/// changed has new content.
enum ContentHash {
    static func of<Bytes: Sequence<UInt8>>(_ bytes: Bytes, seed: UInt64 = 0xCBF2_9CE4_8422_2325) -> String {
        hex(update(seed, bytes))
    }

    static func ofFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var state: UInt64 = 0xCBF2_9CE4_8422_2325
        while true {
            let data: Data?
            do { data = try handle.read(upToCount: 1 << 20) } catch { return nil }
            guard let data, !data.isEmpty else { break }
            state = update(state, data)
        }
        return hex(state)
    }

    private static func update<Bytes: Sequence<UInt8>>(_ start: UInt64, _ bytes: Bytes) -> UInt64 {
        var state = start
        for byte in bytes {
            state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return state
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
