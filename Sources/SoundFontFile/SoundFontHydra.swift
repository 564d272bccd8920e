/// The whole "hydra" of a SoundFont 2 file (SoundFont 2.04, section 7) and its sample data, read by
/// bounds-checked code on top of `SoundFontStructure`: presets and instruments with their zones
/// (generator and modulator lists, the global zone apart), sample headers, and every sample point as
/// the file holds it. It is what a synthesis engine plays from; `SoundFontContents` is the cheap summary.
///
/// Every index in the tables is checked (bags against their tables, generators and modulators against
/// theirs, instrument and sample references, sample points against the sample data): a hostile or
/// truncated file throws a `SoundFontError`, never traps.
///
/// Samples are kept as FluidSynth keeps them: 16-bit integers (`sampleData`), plus the low byte of each
/// point (`sampleLowBytes`) only when the font has `sm24`; the engine converts a point to `Float` as it
/// interpolates (half the memory of keeping floats). SF3 fonts (Ogg Vorbis samples) are decoded to 16 bits
/// at load by the decoder the caller gives (this module links no codec; `SoundFontBank(path:)` passes
/// libsndfile's); without one they are refused.
public struct SoundFontHydra: Sendable {
    /// One generator of a zone: its SoundFont operator number and its 16-bit amount.
    public struct Generator: Sendable, Equatable {
        /// The generator operator (SoundFont 2.04, section 8.1.2), e.g. 43 keyRange, 48 initialAttenuation.
        public var kind: Int
        /// The amount as a signed 16-bit value.
        public var amount: Int16
        /// The amount read as a range (keyRange, velRange): low byte, high byte.
        public var range: ClosedRange<Int> {
            let bits = UInt16(bitPattern: amount)
            let low = Int(bits & 0xFF), high = Int(bits >> 8)
            return low <= high ? low...high : high...low
        }
        /// The amount read as an unsigned 16-bit value (instrument and sample indices).
        public var unsigned: Int { Int(UInt16(bitPattern: amount)) }
    }

    /// One modulator of a zone (SoundFont 2.04, section 8.2): sources, destination, amount, transform.
    public struct Modulator: Sendable, Equatable {
        /// The primary source (`sfModSrcOper`: index, CC flag, direction, polarity, curve type).
        public var source: UInt16
        /// The generator the modulator adds to (a value with bit 15 set links to another modulator).
        public var destination: UInt16
        /// The amount, in the destination's units at full scale.
        public var amount: Int16
        /// The secondary source that scales the amount.
        public var amountSource: UInt16
        /// The transform: 0 linear, 2 absolute value.
        public var transform: UInt16
    }

    /// A preset or instrument zone: its generators (range and index generators included, in file order)
    /// and modulators, and what it refers to (the instrument of a preset zone, the sample of an instrument zone).
    public struct Zone: Sendable, Equatable {
        public var generators: [Generator]
        public var modulators: [Modulator]
        /// The instrument (preset zone) or sample (instrument zone) index; nil for a global zone.
        public var target: Int?
        /// The key range the zone answers (0...127 when it sets none).
        public var keyRange: ClosedRange<Int> { generators.first { $0.kind == 43 }?.range ?? 0...127 }
        /// The velocity range the zone answers (0...127 when it sets none).
        public var velocityRange: ClosedRange<Int> { generators.first { $0.kind == 44 }?.range ?? 0...127 }
    }

    /// A preset: bank, program, name, its global zone and its instrument zones.
    public struct Preset: Sendable, Equatable {
        public var name: String
        public var bank: Int
        public var program: Int
        public var globalZone: Zone?
        public var zones: [Zone]
    }

    /// An instrument: name, global zone and sample zones.
    public struct Instrument: Sendable, Equatable {
        public var name: String
        public var globalZone: Zone?
        public var zones: [Zone]
    }

    /// A sample header (`shdr`): points index `sampleData`, ends are exclusive (an SF3 sample's too, once
    /// decoded: its loop points, relative to the sample in the file, are made absolute).
    public struct SampleHeader: Sendable, Equatable {
        public var name: String
        public var start: Int
        public var end: Int
        public var loopStart: Int
        public var loopEnd: Int
        public var sampleRate: Int
        /// The MIDI key the sample sounds at unshifted.
        public var originalKey: Int
        /// Pitch correction in cents.
        public var correction: Int
        /// The linked sample (the other side of a stereo pair).
        public var link: Int
        /// 1 mono, 2 right, 4 left, 8 linked; bit 15 ROM; bit 4 compressed (SF3).
        public var type: Int
    }

    public let presets: [Preset]
    public let instruments: [Instrument]
    public let samples: [SampleHeader]
    /// Every sample point of the font as a 16-bit integer (the high 16 bits of a 24-bit point).
    public let sampleData: [Int16]
    /// The low 8 bits of every point when the font carried `sm24` (24-bit points), else empty.
    public let sampleLowBytes: [UInt8]
    /// True when the font carried `sm24` and the points have 24 bits.
    public var has24BitSamples: Bool { !sampleLowBytes.isEmpty }

    /// Reads the whole font at `path`, sample data included. `compressedSamples` decodes an SF3 font's
    /// samples (Ogg Vorbis streams) to 16-bit points; without it such a font is refused.
    public init(path: String, compressedSamples: CompressedSampleDecoder? = nil) throws(SoundFontError) {
        let structure = try SoundFontStructure(path: path)
        func fail(_ reason: String) -> SoundFontError { SoundFontError(path: path, problem: .unreadable(reason)) }
        let names = SoundFontStructure.pdtaRecordSizes.map(\.name)
        let data = try structure.data(of: names.map { structure.tables[$0]! })
        var table: [String: PDTARecords] = [:]
        for ((name, size), bytes) in zip(SoundFontStructure.pdtaRecordSizes, data) { table[name] = PDTARecords(bytes: bytes, size: size) }
        let phdr = table["phdr"]!, pbag = table["pbag"]!, pmod = table["pmod"]!, pgen = table["pgen"]!
        let inst = table["inst"]!, ibag = table["ibag"]!, imod = table["imod"]!, igen = table["igen"]!, shdr = table["shdr"]!

        let sampleCount = shdr.count - 1, instrumentCount = inst.count - 1
        guard sampleCount >= 0, instrumentCount >= 0, phdr.count >= 1 else { throw fail("tables without terminal records") }

        /// The zones of the header at `index` (bag index at `bagOffset`), with their generators and modulators.
        func zones(of headers: PDTARecords, _ index: Int, bagOffset: Int, bags: PDTARecords, gens: PDTARecords, mods: PDTARecords,
                   targetKind: Int, targetCount: Int, what: String) throws(SoundFontError) -> (global: Zone?, zones: [Zone]) {
            let first = headers.uint16(index, bagOffset), next = headers.uint16(index + 1, bagOffset)
            guard first <= next, next < bags.count else { throw fail("\(what) \(index) has zones \(first)..<\(next) outside the \(bags.count - 1) in its table") }
            var global: Zone?
            var result: [Zone] = []
            for bag in first..<next {
                let genFirst = bags.uint16(bag, 0), genNext = bags.uint16(bag + 1, 0)
                let modFirst = bags.uint16(bag, 2), modNext = bags.uint16(bag + 1, 2)
                guard genFirst <= genNext, genNext <= gens.count else { throw fail("\(what) \(index) zone \(bag) has generators \(genFirst)..<\(genNext) outside the \(gens.count)") }
                guard modFirst <= modNext, modNext <= mods.count else { throw fail("\(what) \(index) zone \(bag) has modulators \(modFirst)..<\(modNext) outside the \(mods.count)") }
                var zone = Zone(generators: [], modulators: [], target: nil)
                for g in genFirst..<genNext {
                    let generator = Generator(kind: gens.uint16(g, 0), amount: Int16(bitPattern: UInt16(gens.uint16(g, 2))))
                    if generator.kind == targetKind {
                        guard generator.unsigned < targetCount else {
                            throw fail("\(what) \(index) zone \(bag) refers to \(generator.unsigned), past the \(targetCount) in the font")
                        }
                        zone.target = generator.unsigned
                        break  // the index generator is the last one that counts (SoundFont 2.04, 8.1.2)
                    }
                    zone.generators.append(generator)
                }
                for m in modFirst..<modNext {
                    zone.modulators.append(Modulator(
                        source: UInt16(mods.uint16(m, 0)), destination: UInt16(mods.uint16(m, 2)),
                        amount: Int16(bitPattern: UInt16(mods.uint16(m, 4))), amountSource: UInt16(mods.uint16(m, 6)),
                        transform: UInt16(mods.uint16(m, 8))))
                }
                if zone.target != nil {
                    result.append(zone)
                } else if bag == first && global == nil {
                    global = zone  // only the first zone may be global; a later zone without target is ignored
                }
            }
            return (global, result)
        }

        var instruments: [Instrument] = []
        for index in 0..<instrumentCount {
            let (global, list) = try zones(of: inst, index, bagOffset: 20, bags: ibag, gens: igen, mods: imod,
                                           targetKind: 53, targetCount: sampleCount, what: "instrument")
            instruments.append(Instrument(name: SoundFontContents.text(inst.slice(index, 0, 20)), globalZone: global, zones: list))
        }
        var presets: [Preset] = []
        for index in 0..<(phdr.count - 1) {
            let (global, list) = try zones(of: phdr, index, bagOffset: 24, bags: pbag, gens: pgen, mods: pmod,
                                           targetKind: 41, targetCount: instrumentCount, what: "preset")
            presets.append(Preset(name: SoundFontContents.text(phdr.slice(index, 0, 20)), bank: phdr.uint16(index, 22),
                                  program: phdr.uint16(index, 20), globalZone: global, zones: list))
        }

        guard let smpl = structure.sampleChunks.first(where: { $0.id == "smpl" }) else { throw fail("no smpl chunk") }
        let sm24 = structure.sampleChunks.first { $0.id == "sm24" }
        let points = smpl.size / 2
        var samples: [SampleHeader] = []
        for index in 0..<sampleCount {
            let header = SampleHeader(
                name: SoundFontContents.text(shdr.slice(index, 0, 20)), start: shdr.uint32(index, 20), end: shdr.uint32(index, 24),
                loopStart: shdr.uint32(index, 28), loopEnd: shdr.uint32(index, 32), sampleRate: shdr.uint32(index, 36),
                originalKey: Int(shdr.bytes[index * 46 + 40]), correction: Int(Int8(bitPattern: shdr.bytes[index * 46 + 41])),
                link: shdr.uint16(index, 42), type: shdr.uint16(index, 44))
            if header.type & 0x10 != 0 {
                guard compressedSamples != nil else { throw fail("sample \(index) is Ogg Vorbis compressed and no decoder was given") }
                guard header.start <= header.end, header.end <= smpl.size else {
                    throw fail("sample \(index) '\(header.name)' spans bytes \(header.start)..<\(header.end) outside the \(smpl.size) of its chunk")
                }
            } else if header.type & 0x8000 == 0 {
                guard header.start <= header.end, header.end <= points else {
                    throw fail("sample \(index) '\(header.name)' spans \(header.start)..<\(header.end) outside the \(points) sample points")
                }
            }
            samples.append(header)
        }

        // The sample data: 16-bit little-endian points, plus the low bytes of sm24 when it matches smpl.
        // An SF3 font's smpl chunk is bytes (Ogg Vorbis streams between 16-bit samples), decoded sample by sample.
        let file = try structure.open()
        defer { file.close() }
        if let decoder = compressedSamples, samples.contains(where: { $0.type & 0x10 != 0 }) {
            (samples, sampleData) = try Self.decoded(samples, of: file, smpl: smpl, decoder: decoder, fail: fail)
            sampleLowBytes = []
        } else {
            sampleData = try file.points(of: smpl, count: points, as: Int16.self)
            let useSM24 = sm24.map { $0.size >= points } ?? false
            sampleLowBytes = useSM24 ? try file.points(of: sm24!, count: points, as: UInt8.self) : []
        }
        self.presets = presets
        self.instruments = instruments
        self.samples = samples
    }

    /// The sample data of an SF3 font: each sample's points in turn (a compressed one decoded, an
    /// uncompressed one as the file holds it), and the headers moved onto them. The decoder counts each
    /// compressed sample's points first, so the points are decoded straight into one array of exactly their
    /// size, and each sample's bytes are read from the file as it is counted and decoded: the memory held is
    /// the decoded points once, as FluidSynth holds them (not the file's sample bytes beside an array grown
    /// by doubling, 1.8 times FluidSynth's peak for MuseScore_General.sf3). A sample that decodes to fewer
    /// points than counted ends in silence; more are cut at the count.
    private static func decoded(_ headers: [SampleHeader], of file: ChunkFile, smpl: SoundFontStructure.Chunk,
                                decoder: CompressedSampleDecoder, fail: (String) -> SoundFontError) throws(SoundFontError) -> ([SampleHeader], [Int16]) {
        var samples = headers
        var total = 0
        for (index, header) in headers.enumerated() {
            var moved = header
            var count = 0
            if header.type & 0x10 != 0 {
                let bytes = try file.points(of: smpl, from: header.start, count: header.end - header.start, as: UInt8.self)
                guard let frames = bytes.withUnsafeBytes(decoder.pointCount), frames >= 0 else {
                    throw fail("sample \(index) '\(header.name)': its Ogg Vorbis data cannot be decoded")
                }
                count = frames
                moved.loopStart = total + header.loopStart
                moved.loopEnd = total + header.loopEnd
            } else if header.type & 0x8000 == 0 {
                count = header.end - header.start
                moved.loopStart = header.loopStart - header.start + total
                moved.loopEnd = header.loopEnd - header.start + total
            }
            moved.start = total
            total += count
            moved.end = total
            samples[index] = moved
        }
        var failure: SoundFontError?
        let data = [Int16](unsafeUninitializedCapacity: total) { buffer, initialized in
            buffer.initialize(repeating: 0)
            initialized = total
            for (index, (header, moved)) in zip(headers, samples).enumerated() where moved.end > moved.start {
                let points = UnsafeMutableBufferPointer(rebasing: buffer[moved.start..<moved.end])
                do throws(SoundFontError) {
                    if header.type & 0x10 != 0 {
                        let bytes = try file.points(of: smpl, from: header.start, count: header.end - header.start, as: UInt8.self)
                        guard bytes.withUnsafeBytes({ decoder.decode($0, points) }) != nil else {
                            throw fail("sample \(index) '\(header.name)': its Ogg Vorbis data cannot be decoded")
                        }
                    } else {
                        _ = points.initialize(fromContentsOf: try file.points(of: smpl, from: 2 * header.start, count: points.count, as: Int16.self))
                    }
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return (samples, data)
    }
}

/// Decodes an SF3 font's compressed samples (Ogg Vorbis streams) for `SoundFontHydra`, which links no codec:
/// `SoundFontBank(path:)` gives libsndfile's (`InMemoryAudioDecoder`). The hydra counts every sample's points
/// first, then decodes each straight into its place in the font's one array of points.
public struct CompressedSampleDecoder: Sendable {
    /// The number of 16-bit points the stream in the bytes decodes to (its first channel), nil when it cannot be read.
    public var pointCount: @Sendable (UnsafeRawBufferPointer) -> Int?
    /// Decodes the stream's first channel into the points (as many as fit), returning how many it wrote; nil
    /// when it cannot be decoded.
    public var decode: @Sendable (UnsafeRawBufferPointer, UnsafeMutableBufferPointer<Int16>) -> Int?

    /// A decoder from its two functions.
    public init(pointCount: @escaping @Sendable (UnsafeRawBufferPointer) -> Int?,
                decode: @escaping @Sendable (UnsafeRawBufferPointer, UnsafeMutableBufferPointer<Int16>) -> Int?) {
        self.pointCount = pointCount; self.decode = decode
    }
}
