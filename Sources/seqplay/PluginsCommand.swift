import ArgumentParser
import Foundation
import LV2

/// `seqplay plugins`: the installed LV2 plugins (what `lv2ls` and `lv2info` show, and whether seqplay can
/// host each); `seqplay plugins URI` for one.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the installed LV2 plugins (instruments for --instrument, effects for --fx lv2:URI).",
        discussion: "--where takes instrument, effect, other, hostable, unhostable, usable, unusable (an effect whose audio does not fit the stereo chain is listed as not usable), or text found in the URI, name or class; repeat it to narrow the list."
    )

    @Argument(help: ArgumentHelp("Show this plugin in full: ports with ranges and defaults, presets, features.", valueName: "uri"))
    var uri: String?

    @Flag(help: "Print as JSON.")
    var json = false

    @Option(name: .customLong("where"), help: ArgumentHelp("Only plugins matching this term.", valueName: "term"))
    var terms: [String] = []

    func run() throws {
        if let uri {
            let plugin: LV2PluginInfo
            do {
                plugin = try LV2Plugins.find(uri: uri)
            } catch {
                throw ValidationError("\(error)")
            }
            print(json ? try CommandLineOutput.json(plugin) : plugin.detailedDescription)
            return
        }
        let filter = LV2PluginFilter(terms: terms)
        let plugins = LV2Plugins.all().filter(filter.matches)
        if json {
            print(try CommandLineOutput.json(plugins))
        } else {
            for plugin in plugins { print(plugin.summaryLine) }
        }
    }
}
