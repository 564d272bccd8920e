import Foundation

/// Inputs of a batch whose outputs would have had one name (`song.wav` of `/a/x/song.mid` and
/// `/a/y/song.mid`; `t.wav` of `t.mid` and `t.kar`), and the relative paths they were given instead,
/// so that no output is written twice. `seqplay render` says so on standard error.
public struct NameCollision: Sendable {
    /// The output name (under the output directory, without extension) they would have shared.
    public var sharedName: String
    /// The inputs, with the names they were given.
    public var inputs: [BatchInput]
}

extension BatchInputDiscovery {
    /// `inputs` (sorted by relative path) with no two sharing an output name. Those that would share
    /// one are mirrored under the folder their bases (the folders their relative paths start from)
    /// have in common (`DIR1/a.mid` and `DIR2/a.mid` given as `DIR1` and `DIR2`: `DIR1/a`, `DIR2/a`);
    /// those still sharing it, differing only in extension, keep their extensions (`t.mid`, `t.kar`).
    /// An input whose new name another input's output already has is left out, as a problem.
    static func separatingOutputNames(_ inputs: [BatchInput]) -> (inputs: [BatchInput], collisions: [NameCollision], problems: [Problem]) {
        var renamed = inputs
        var collisions: [NameCollision] = []
        let groups = Dictionary(grouping: inputs.indices) { inputs[$0].outputName }
        for name in groups.keys.sorted() {
            guard let members = groups[name], members.count > 1 else { continue }
            let folder = commonFolder(members.map { base(of: inputs[$0]) })
            for member in members {
                renamed[member].relativePath = relative(absolute(inputs[member].path), under: folder)
            }
            for same in Dictionary(grouping: members, by: { renamed[$0].outputName }).values where same.count > 1 {
                for member in same { renamed[member].keepsExtension = true }
            }
            collisions.append(NameCollision(sharedName: name, inputs: members.map { renamed[$0] }))
        }
        var owners: [String: String] = [:]
        var kept: [BatchInput] = []
        var problems: [Problem] = []
        for input in renamed.sorted(by: { ($0.relativePath, $0.path) < ($1.relativePath, $1.path) }) {
            if let owner = owners[input.outputName] {
                problems.append(Problem(path: input.path, reason: "its output would be \(owner)'s too (\(input.outputName)); not rendered: render it in a batch of its own"))
                continue
            }
            owners[input.outputName] = input.path
            kept.append(input)
        }
        return (kept, collisions, problems)
    }

    /// `inputs` but those whose output would be another input's stem with `stems` (`x.ch01.mid` beside
    /// `x.mid`: `x.ch01.wav` is both), which come back as problems.
    public static func separatingStemNames(_ inputs: [BatchInput], stems: StemMode?) -> (inputs: [BatchInput], problems: [Problem]) {
        guard let stems else { return (inputs, []) }
        let owners = Dictionary(inputs.map { ($0.outputName, $0.path) }) { first, _ in first }
        var kept: [BatchInput] = []
        var problems: [Problem] = []
        for input in inputs {
            let name = input.outputName as NSString
            if StemPlan.isStemName(name.pathExtension, mode: stems), let owner = owners[name.deletingPathExtension] {
                problems.append(Problem(path: input.path, reason: "its output would be \(owner)'s \(name.pathExtension) stem too; not rendered: render it in a batch of its own"))
            } else {
                kept.append(input)
            }
        }
        return (kept, problems)
    }

    /// The absolute folder `input`'s relative path starts from.
    private static func base(of input: BatchInput) -> String {
        let path = absolute(input.path)
        guard path.hasSuffix("/" + input.relativePath) else { return (path as NSString).deletingLastPathComponent }
        let folder = String(path.dropLast(input.relativePath.count + 1))
        return folder.isEmpty ? "/" : folder
    }
}
