import CFluidSynth
import Logging

/// Routes FluidSynth's log output (which it otherwise prints to stderr) into seqplay's logging,
/// under the label `seqplay.fluidsynth`.
///
/// FluidSynth's log configuration is process-wide, so this is installed once, before the first
/// synth is created.
enum FluidSynthLog {
    /// The label of the logger FluidSynth's messages go to.
    static let label = "seqplay.fluidsynth"

    /// Installs the forwarding function for every FluidSynth log level (idempotent).
    static func install() {
        _ = installed
    }

    private static let installed: Void = {
        let forward: @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
            level, message, _ in
            guard let message else { return }
            // A logger per message (they are rare), so it uses whatever handler the program bootstrapped.
            Logger(label: FluidSynthLog.label).log(level: FluidSynthLog.swiftLogLevel(level), "\(String(cString: message))")
        }
        for level in [FLUID_PANIC, FLUID_ERR, FLUID_WARN, FLUID_INFO, FLUID_DBG] {
            fluid_set_log_function(Int32(level.rawValue), forward, nil)
        }
    }()

    static func swiftLogLevel(_ fluidLevel: Int32) -> Logger.Level {
        switch UInt32(bitPattern: fluidLevel) {
        case FLUID_PANIC.rawValue: return .critical
        case FLUID_ERR.rawValue: return .error
        case FLUID_WARN.rawValue: return .warning
        case FLUID_INFO.rawValue: return .info
        default: return .debug
        }
    }
}
