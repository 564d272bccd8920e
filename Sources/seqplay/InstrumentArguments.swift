import ArgumentParser
import LV2

/// `--instrument CH=lv2:URI[,…]`: LV2 instruments playing some MIDI channels, for songs (`seqplay SONG`, renders,
/// batches) and live hosts (`live`, `serve`) alike.
struct InstrumentArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Play MIDI channel(s) CH (1-16, or a range such as 1-9) on an LV2 instrument, each note on its exact sample; repeatable, one instance each; other channels stay on the SoundFont sampler ('seqplay plugins --where instrument' lists them).", valueName: "CH=lv2:URI[,SYMBOL=VALUE…][,preset=NAME]"))
    var instrument: [String] = []

    func validate() throws { _ = try assignments() }

    /// The instruments given, checked (exit 64 with one line naming what is wrong).
    func assignments() throws -> [LV2InstrumentAssignment] {
        try parsedFlag("--instrument") {
            let assignments = try instrument.map { text throws(LV2InstrumentAssignmentError) in try LV2InstrumentAssignment(parsing: text) }
            try LV2InstrumentAssignment.check(assignments)
            return assignments
        }
    }
}
