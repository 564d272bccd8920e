import ArgumentParser
import SeqplaySupport

/// The `seqplay` command: plays or renders MIDI files through a SoundFont sampler, and inspects them.
@main
struct Seqplay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seqplay",
        abstract: "Play and render MIDI files through a SoundFont sampler.",
        version: SeqplayVersion.string,
        subcommands: [
            RenderCommand.self, InfoCommand.self, ServeCommand.self,
            PortsCommand.self, ConnectCommand.self, MonitorCommand.self, LoopbackCommand.self, SendCommand.self,
            RecordCommand.self, LiveCommand.self, ConvertCommand.self, LibraryCommand.self, RollCommand.self, WaveformCommand.self,
            PluginsCommand.self,
        ],
        defaultSubcommand: RenderCommand.self
    )
}
