import SeqplaySupport

extension SequencerTakeRecording {
    /// Records until `duration` is reached, a signal reaches `interruption`, or q or Enter is pressed on
    /// `keys`; space or p pauses and resumes (the pause cut out), `status` told "Paused" or "Recording".
    /// Then records what is still waiting and saves the take (`finish()`), as `seqplay record` does.
    public func run(until interruption: Interruption, keys: TerminalKeys,
                    status: (String) -> Void) throws(SequencerRecordingError) {
        recording: while interruption.signalReceived == nil, try !record() {
            switch keys.nextKey() {
            case " ", "p":
                let paused = take.isPaused
                do {
                    paused ? try resume() : try pause()
                } catch {
                    throw .sequencer(error)
                }
                status(paused ? "Recording" : "Paused")
            case "q", "\n":
                break recording
            default:
                break
            }
        }
        try finish()
    }
}
