import Foundation

/// The RIFF layout of a SoundFont 2/3 file, checked: the `sfbk` form, the `INFO`, `sdta` and `pdta`
/// lists, chunk sizes that fit their container and the file, an `smpl` chunk, and the nine `pdta`
/// tables made of whole records. It is what FluidSynth is given only after these checks pass
/// (FluidSynth has crashed on malformed files), and what `SoundFontContents` reads tables from.
///
/// Only chunk headers are read, so checking a 150 MB font costs a few dozen small reads.
public struct SoundFontStructure: Sendable {
    /// A chunk: its four-character id, where its data starts in the file, and its declared size.
    public struct Chunk: Sendable, Equatable {
        public let id: String
        public let dataOffset: Int
        public let size: Int
    }

    /// Record sizes of the nine `pdta` tables (SoundFont 2.04, section 7).
    public static let pdtaRecordSizes: [(name: String, size: Int)] = [
        ("phdr", 38), ("pbag", 4), ("pmod", 10), ("pgen", 4),
        ("inst", 22), ("ibag", 4), ("imod", 10), ("igen", 4), ("shdr", 46),
    ]

    /// The file's path, as errors name it.
    public let path: String
    /// The file's size in bytes.
    public let fileSize: Int
    /// The sub-chunks of the `INFO` list (`ifil`, `INAM`, `ICMT`…), in file order.
    public let infoChunks: [Chunk]
    /// The sub-chunks of the `sdta` list (`smpl`, optionally `sm24`).
    public let sampleChunks: [Chunk]
    /// The nine `pdta` tables by name, each a whole number of records.
    public let tables: [String: Chunk]

    /// Reads and checks the chunk layout of the file at `path`.
    public init(path: String) throws(SoundFontError) {
        let file = try ChunkFile(path: path)
        defer { file.close() }
        self.path = path
        fileSize = file.size

        let riff = try file.read(12, at: 0)
        guard riff.count == 12, fourCC(riff[0..<4]) == "RIFF" else { throw file.fail(.notRIFF) }
        let form = fourCC(riff[8..<12])
        guard form == "sfbk" else { throw file.fail(.notSoundFont(form: form)) }
        let riffEnd = 8 + uint32(riff, at: 4)
        guard riffEnd <= fileSize else { throw file.fail(.truncated(declared: riffEnd, actual: fileSize)) }

        var lists: [String: Chunk] = [:]
        for chunk in try file.chunks(from: 12, to: riffEnd, in: "sfbk") where chunk.id == "LIST" && chunk.size >= 4 {
            let type = fourCC(try file.read(4, at: chunk.dataOffset)[...])
            lists[type] = chunk
        }
        func list(_ name: String) throws(SoundFontError) -> Chunk {
            guard let chunk = lists[name] else { throw file.fail(.missingChunk("LIST \(name)")) }
            return chunk
        }
        let info = try list("INFO"), sdta = try list("sdta"), pdta = try list("pdta")
        infoChunks = try file.chunks(from: info.dataOffset + 4, to: info.dataOffset + info.size, in: "INFO")
        sampleChunks = try file.chunks(from: sdta.dataOffset + 4, to: sdta.dataOffset + sdta.size, in: "sdta")
        guard sampleChunks.contains(where: { $0.id == "smpl" }) else { throw file.fail(.missingChunk("smpl")) }

        let found = try file.chunks(from: pdta.dataOffset + 4, to: pdta.dataOffset + pdta.size, in: "pdta")
        var tables: [String: Chunk] = [:]
        for (name, recordSize) in Self.pdtaRecordSizes {
            guard let table = found.first(where: { $0.id == name }) else { throw file.fail(.missingChunk(name)) }
            guard table.size % recordSize == 0, table.size >= recordSize else {
                throw file.fail(.badRecordSize(chunk: name, size: table.size, recordSize: recordSize))
            }
            tables[name] = table
        }
        self.tables = tables
    }

    /// The data of `chunk`, read from the file (the caller keeps chunks small: INFO strings, `pdta` tables).
    func data(of chunks: [Chunk]) throws(SoundFontError) -> [[UInt8]] {
        let file = try ChunkFile(path: path)
        defer { file.close() }
        var result: [[UInt8]] = []
        for chunk in chunks {
            let bytes = try file.read(chunk.size, at: chunk.dataOffset)
            guard bytes.count == chunk.size else { throw file.fail(.truncated(declared: chunk.dataOffset + chunk.size, actual: file.size)) }
            result.append(bytes)
        }
        return result
    }

    /// The file opened for reading, to read many chunks' `points` through one descriptor (an SF3 font's samples are
    /// read one by one, each twice); the caller closes it.
    func open() throws(SoundFontError) -> ChunkFile {
        try ChunkFile(path: path)
    }
}

/// A file opened for reading chunk headers and data at offsets; every failure names the file.
final class ChunkFile {
    let path: String
    let size: Int
    private let handle: FileHandle

    init(path: String) throws(SoundFontError) {
        self.path = path
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw SoundFontError(path: path, problem: .unreadable("is a directory"))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw SoundFontError(path: path, problem: .unreadable(reason))
        }
        self.handle = handle
        do {
            size = Int(try handle.seekToEnd())
        } catch {
            try? handle.close()
            throw SoundFontError(path: path, problem: .unreadable((error as NSError).localizedDescription))
        }
    }

    func close() { try? handle.close() }

    /// `count` points of `chunk` from byte `from` of its data (the chunk holds at least that many) read straight
    /// into an array of `T` (`Int16` for `smpl`, `UInt8` for `sm24` or SF3 bytes), without an intermediate copy
    /// of the bytes: the sample data is most of a font. Points are little-endian in the file; `T(littleEndian:)`
    /// makes them native.
    func points<T: FixedWidthInteger>(of chunk: SoundFontStructure.Chunk, from: Int = 0, count: Int, as _: T.Type) throws(SoundFontError) -> [T] {
        var failure: SoundFontError?
        let points = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var done = 0
            while done < raw.count {
                let read = pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(chunk.dataOffset + from + done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else {
                    failure = read < 0 ? fail(.unreadable(String(cString: strerror(errno))))
                        : fail(.truncated(declared: chunk.dataOffset + chunk.size, actual: size))
                    break
                }
                done += read
            }
            if failure != nil { raw.initializeMemory(as: UInt8.self, repeating: 0) }
            for i in 0..<count { buffer[i] = T(littleEndian: buffer[i]) }
            initialized = count
        }
        if let failure { throw failure }
        return points
    }

    /// The file's descriptor, for reads straight into memory.
    var descriptor: Int32 { handle.fileDescriptor }

    func fail(_ problem: SoundFontError.Problem) -> SoundFontError {
        SoundFontError(path: path, problem: problem)
    }

    func read(_ count: Int, at offset: Int) throws(SoundFontError) -> [UInt8] {
        do {
            try handle.seek(toOffset: UInt64(offset))
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw fail(.unreadable("\(error)"))
        }
    }

    /// The chunks laid end to end in `start..<end`, each checked to fit.
    func chunks(from start: Int, to end: Int, in container: String) throws(SoundFontError) -> [SoundFontStructure.Chunk] {
        var result: [SoundFontStructure.Chunk] = []
        var offset = start
        while offset + 8 <= end {
            let header = try read(8, at: offset)
            guard header.count == 8 else { throw fail(.truncated(declared: end, actual: size)) }
            let chunk = SoundFontStructure.Chunk(id: fourCC(header[0..<4]), dataOffset: offset + 8, size: uint32(header, at: 4))
            let available = end - chunk.dataOffset
            guard chunk.size <= available else {
                throw fail(.chunkOverrun(chunk: "\(container)/\(chunk.id)", size: chunk.size, available: available))
            }
            result.append(chunk)
            offset = chunk.dataOffset + chunk.size + (chunk.size & 1)
        }
        return result
    }
}

/// Four bytes as a chunk id, non-printable bytes shown as "?".
func fourCC(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}

/// The little-endian 32-bit value at `index`.
func uint32(_ bytes: [UInt8], at index: Int) -> Int {
    Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 24
}
