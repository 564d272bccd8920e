/// What a SoundFont 2/3 file holds, read by bounds-checked code of seqplay's own (no FluidSynth):
/// its header (`INFO`: version, name, author, comment…), its presets (bank, program, name, zones),
/// how many instruments, zones and samples it has and how big its sample data is, and the problems
/// found in its tables. Reading it costs the `INFO` and `pdta` chunks, never the sample data.
public struct SoundFontContents: Codable, Equatable, Sendable {
    /// One preset: where it sits in the bank/program grid, its name and its zone count, as the file holds
    /// it (no synthesizer involved; a loaded font's preset, with the font it comes from, is `Sampler`'s
    /// `Preset`).
    public struct Preset: Codable, Equatable, Sendable {
        public var bank: Int
        public var program: Int
        public var name: String
        /// Preset zones (global zone included).
        public var zones: Int
    }

    /// The file's path.
    public var file: String
    /// "SF2", or "SF3" for a font with Ogg Vorbis compressed samples (version 3 or compressed sample headers).
    public var format: String
    /// The SoundFont specification version the file declares (`ifil`), e.g. "2.1".
    public var version: String?
    /// `INAM`: the font's name.
    public var name: String?
    /// `isng`: the sound engine it was made for.
    public var engine: String?
    /// `IENG`: who made it.
    public var author: String?
    /// `ICOP`: the copyright notice.
    public var copyright: String?
    /// `ICRD`: creation date, as written.
    public var date: String?
    /// `ICMT`: the comment.
    public var comment: String?
    /// `ISFT`: the tools that wrote it.
    public var software: String?
    /// Presets in file order (the terminal record left out).
    public var presets: [Preset]
    /// Instruments (terminal left out).
    public var instruments: Int
    /// Preset zones plus instrument zones.
    public var zones: Int
    /// Sample headers (terminal left out).
    public var samples: Int
    /// Bytes of sample data (`smpl`, plus `sm24` where present).
    public var sampleDataBytes: Int
    /// File size in bytes.
    public var fileSize: Int
    /// What is wrong in the tables, in words; a font with problems may still play.
    public var problems: [String]

    /// Reads the SoundFont at `path`. Throws when its RIFF structure is broken (as `SoundFontStructure`);
    /// problems inside well-formed tables are listed in `problems` instead.
    public init(path: String) throws(SoundFontError) {
        let structure = try SoundFontStructure(path: path)
        file = path
        fileSize = structure.fileSize
        var problems: [String] = []

        let infoData = try structure.data(of: structure.infoChunks)
        var texts: [String: String] = [:]
        var versionMajor: Int?
        for (chunk, bytes) in zip(structure.infoChunks, infoData) {
            if chunk.id == "ifil" {
                if bytes.count >= 4 {
                    let major = Int(bytes[0]) | Int(bytes[1]) << 8, minor = Int(bytes[2]) | Int(bytes[3]) << 8
                    versionMajor = major
                    version = "\(major).\(minor)"
                } else {
                    problems.append("'ifil' is \(bytes.count) bytes, not 4")
                }
            } else if texts[chunk.id] == nil {
                texts[chunk.id] = Self.text(bytes[...])
            }
        }
        if version == nil { problems.append("no 'ifil' version chunk") }
        if texts["INAM"] == nil { problems.append("no 'INAM' name chunk") }
        name = texts["INAM"]; engine = texts["isng"]; author = texts["IENG"]; copyright = texts["ICOP"]
        date = texts["ICRD"]; comment = texts["ICMT"]; software = texts["ISFT"]
        sampleDataBytes = structure.sampleChunks.filter { $0.id == "smpl" || $0.id == "sm24" }.map(\.size).reduce(0, +)

        let names = ["phdr", "pbag", "inst", "ibag", "shdr"]
        let tableData = try structure.data(of: names.map { structure.tables[$0]! })
        let table = Dictionary(uniqueKeysWithValues: zip(names, tableData))
        let phdr = PDTARecords(bytes: table["phdr"]!, size: 38), pbag = PDTARecords(bytes: table["pbag"]!, size: 4)
        let inst = PDTARecords(bytes: table["inst"]!, size: 22), ibag = PDTARecords(bytes: table["ibag"]!, size: 4)
        let shdr = PDTARecords(bytes: table["shdr"]!, size: 46)

        /// The zone count of each record of `headers` (bag index at `bagOffset`) against `bags`, whose
        /// last record is the terminal; reports indices that go backwards or past the table.
        func zoneCounts(_ headers: PDTARecords, bagOffset: Int, bags: PDTARecords, what: String) -> [Int] {
            var counts: [Int] = []
            for index in 0..<max(0, headers.count - 1) {
                let first = headers.uint16(index, bagOffset), next = headers.uint16(index + 1, bagOffset)
                if next < first || next > bags.count - 1 {
                    problems.append("\(what) \(index) has zones \(first)..<\(next) outside the \(bags.count - 1) in its table")
                    counts.append(0)
                } else {
                    counts.append(next - first)
                }
            }
            return counts
        }
        let presetZones = zoneCounts(phdr, bagOffset: 24, bags: pbag, what: "preset")
        let instrumentZones = zoneCounts(inst, bagOffset: 20, bags: ibag, what: "instrument")
        presets = presetZones.indices.map { index in
            Preset(bank: phdr.uint16(index, 22), program: phdr.uint16(index, 20), name: Self.text(phdr.slice(index, 0, 20)),
                   zones: presetZones[index])
        }
        instruments = instrumentZones.count
        zones = presetZones.reduce(0, +) + instrumentZones.reduce(0, +)
        samples = max(0, shdr.count - 1)
        for (name, records) in [("phdr", phdr), ("inst", inst), ("shdr", shdr)] where records.count < 2 {
            problems.append("'\(name)' has no records before its terminal record")
        }

        var compressed = false
        let smplWords = (structure.sampleChunks.first { $0.id == "smpl" }?.size ?? 0) / 2
        for index in 0..<samples {
            let type = shdr.uint16(index, 44)
            if type & 0x10 != 0 { compressed = true; continue }
            let start = shdr.uint32(index, 20), end = shdr.uint32(index, 24)
            if type & 0x8000 == 0 && (start > end || end > smplWords) {
                problems.append("sample \(index) '\(Self.text(shdr.slice(index, 0, 20)))' spans \(start)..<\(end) outside the \(smplWords) sample points")
            }
        }
        format = (versionMajor ?? 2) >= 3 || compressed ? "SF3" : "SF2"
        self.problems = problems
    }

    /// A fixed-size or zero-terminated string field: up to the first NUL, invalid UTF-8 repaired,
    /// trailing blanks removed.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let upToNUL = bytes.prefix { $0 != 0 }
        let decoded = String(decoding: upToNUL, as: UTF8.self)
        return String(decoded.reversed().drop { $0 == " " }.reversed())
    }
}

/// A `pdta` table: `count` records of `size` bytes, little-endian fields read by record index and byte offset
/// (whole records, as `SoundFontStructure` checked); `SoundFontContents` and `SoundFontHydra` read through it.
struct PDTARecords {
    let bytes: [UInt8]
    let size: Int
    var count: Int { bytes.count / size }

    func slice(_ record: Int, _ offset: Int, _ length: Int) -> ArraySlice<UInt8> {
        bytes[record * size + offset ..< record * size + offset + length]
    }

    func uint16(_ record: Int, _ offset: Int) -> Int {
        let base = record * size + offset
        return Int(bytes[base]) | Int(bytes[base + 1]) << 8
    }

    func uint32(_ record: Int, _ offset: Int) -> Int {
        SoundFontFile.uint32(bytes, at: record * size + offset)
    }
}
