import MIDICore

/// A source without the messages on some channels (those LV2 instruments play, for the SoundFont sampler).
final class ChannelDroppingSource: ScheduledMIDISource, MIDIReceiver {
    var source: any ScheduledMIDISource
    private var dropped = [Bool](repeating: false, count: 16)
    private var target: (any MIDIReceiver)?

    init(source: any ScheduledMIDISource, channels: [Int]) {
        self.source = source
        for channel in channels where (0..<16).contains(channel) { dropped[channel] = true }
    }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        target = receiver
        source.deliverEvents(before: sampleTime, to: self)
        target = nil
    }

    var nextEventSampleTime: Int64? { source.nextEventSampleTime }

    func receive(_ message: MIDIMessage) {
        if let channel = message.channel, dropped[Int(channel)] { return }
        target?.receive(message)
    }
}
