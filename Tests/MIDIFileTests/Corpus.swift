import Foundation
import MIDIFile

/// The shared MIDI test corpus (../shared/corpus beside the package, or $SEQPLAY_CORPUS).
enum Corpus {
    static let root: URL? = {
        let path = ProcessInfo.processInfo.environment["SEQPLAY_CORPUS"]
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            print("MIDI corpus not found at \(path): corpus tests skipped (set SEQPLAY_CORPUS to run them)")
            return nil
        }
        return URL(fileURLWithPath: path)
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every regular file (but README .txt files) under `folder` of the corpus, sorted by path.
    static func files(in folder: String) -> [URL] {
        guard let root, let walker = FileManager.default.enumerator(
            at: root.appendingPathComponent(folder), includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walker.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .filter { $0.pathExtension != "txt" }
            .sorted { $0.path < $1.path }
    }

    /// The path of `file` relative to the corpus folder `folder`.
    static func relativePath(_ file: URL, in folder: String) -> String {
        String(file.path.dropFirst(root!.appendingPathComponent(folder).path.count + 1))
    }
}

/// The reference JSON's notation for events (see the corpus README): `[tick, "midi", hex]`,
/// `[tick, "sysex", "f0…f7"]`, `[tick, "meta", typeHex, dataHex]`.
enum ReferenceNotation {
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// An event as the reference writes it; F0 and F7 packets both as one "sysex" (as mido reads them).
    static func describe(_ timed: TimedEvent) -> [String] {
        let tick = String(timed.tick)
        switch timed.event {
        case .midi(let message): return [tick, "midi", hex(message.bytes)]
        case .sysEx(let data), .escape(let data):
            let body = data.last == 0xF7 ? data.dropLast() : data[...]
            return [tick, "sysex", "f0" + hex(body) + "f7"]
        case .meta(let meta): return [tick, "meta", String(format: "%02x", meta.typeByte), hex(meta.data)]
        }
    }

    /// The events of a reference JSON file, per track, in the same notation.
    static func load(_ url: URL) throws -> (format: Int, division: Int, tracks: [[[String]]]) {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let tracks = (object["tracks"] as! [[[Any]]]).map { track in
            track.map { event in event.map { "\($0)" } }
        }
        return (object["format"] as! Int, object["division"] as! Int, tracks)
    }
}
