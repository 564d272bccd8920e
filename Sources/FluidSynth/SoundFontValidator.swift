import Foundation

/// Checks the RIFF structure of a SoundFont 2/3 file before FluidSynth sees it, because FluidSynth
/// has crashed on malformed files: the RIFF `sfbk` header, the `INFO`, `sdta` and `pdta` lists,
/// chunk sizes that fit their container and the file, and `pdta` tables made of whole records.
///
/// Only chunk headers are read, so checking a 150 MB font costs a few dozen small reads.
enum SoundFontValidator {
    /// Record sizes of the nine `pdta` tables (SoundFont 2.04, section 7).
    static let pdtaRecordSizes: [(name: String, size: Int)] = [
        ("phdr", 38), ("pbag", 4), ("pmod", 10), ("pgen", 4),
        ("inst", 22), ("ibag", 4), ("imod", 10), ("igen", 4), ("shdr", 46),
    ]

    /// A chunk header: its four-character id, where its data starts, and its declared size.
    struct Chunk {
        let id: String
        let dataOffset: Int
        let size: Int
    }

    static func validate(path: String) throws(SoundFontError) {
        func fail(_ problem: SoundFontError.Problem) -> SoundFontError {
            SoundFontError(path: path, problem: problem)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw fail(.unreadable(reason))
        }
        defer { try? handle.close() }
        let fileSize: Int
        do {
            fileSize = Int(try handle.seekToEnd())
        } catch {
            throw fail(.unreadable("\(error)"))
        }

        func read(_ count: Int, at offset: Int) throws(SoundFontError) -> [UInt8] {
            do {
                try handle.seek(toOffset: UInt64(offset))
                let data = try handle.read(upToCount: count) ?? Data()
                return [UInt8](data)
            } catch {
                throw fail(.unreadable("\(error)"))
            }
        }
        func fourCC(_ bytes: ArraySlice<UInt8>) -> String {
            String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        }
        func uint32(_ bytes: [UInt8], at index: Int) -> Int {
            Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 24
        }
        /// The chunks laid end to end in `start..<end`, each checked to fit.
        func chunks(from start: Int, to end: Int, in container: String) throws(SoundFontError) -> [Chunk] {
            var result: [Chunk] = []
            var offset = start
            while offset + 8 <= end {
                let header = try read(8, at: offset)
                guard header.count == 8 else { throw fail(.truncated(declared: end, actual: fileSize)) }
                let chunk = Chunk(id: fourCC(header[0..<4]), dataOffset: offset + 8, size: uint32(header, at: 4))
                let available = end - chunk.dataOffset
                guard chunk.size <= available else {
                    throw fail(.chunkOverrun(chunk: "\(container)/\(chunk.id)", size: chunk.size, available: available))
                }
                result.append(chunk)
                offset = chunk.dataOffset + chunk.size + (chunk.size & 1)
            }
            return result
        }

        let riff = try read(12, at: 0)
        guard riff.count == 12, fourCC(riff[0..<4]) == "RIFF" else { throw fail(.notRIFF) }
        let form = fourCC(riff[8..<12])
        guard form == "sfbk" else { throw fail(.notSoundFont(form: form)) }
        let riffEnd = 8 + uint32(riff, at: 4)
        guard riffEnd <= fileSize else { throw fail(.truncated(declared: riffEnd, actual: fileSize)) }

        var lists: [String: Chunk] = [:]
        for chunk in try chunks(from: 12, to: riffEnd, in: "sfbk") where chunk.id == "LIST" && chunk.size >= 4 {
            let type = fourCC(try read(4, at: chunk.dataOffset)[...])
            lists[type] = chunk
        }
        for required in ["INFO", "sdta", "pdta"] where lists[required] == nil {
            throw fail(.missingChunk("LIST \(required)"))
        }

        let sdta = lists["sdta"]!
        let sampleChunks = try chunks(from: sdta.dataOffset + 4, to: sdta.dataOffset + sdta.size, in: "sdta")
        guard sampleChunks.contains(where: { $0.id == "smpl" }) else { throw fail(.missingChunk("smpl")) }

        let pdta = lists["pdta"]!
        let tables = try chunks(from: pdta.dataOffset + 4, to: pdta.dataOffset + pdta.size, in: "pdta")
        for (name, recordSize) in pdtaRecordSizes {
            guard let table = tables.first(where: { $0.id == name }) else { throw fail(.missingChunk(name)) }
            guard table.size % recordSize == 0, table.size >= recordSize else {
                throw fail(.badRecordSize(chunk: name, size: table.size, recordSize: recordSize))
            }
        }
    }
}
