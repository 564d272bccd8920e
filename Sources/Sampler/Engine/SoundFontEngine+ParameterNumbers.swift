/// Registered and non-registered parameter numbers as FluidSynth 2.3 reads them: RPN 0 (pitch bend range),
/// RPN 1 and 2 (channel fine and coarse tuning) and the SoundFont 2.01 NRPNs (section 9.6), which add an
/// offset to one generator of every voice of the channel, sounding or to come.
extension SoundFontEngine {
    /// Data entry MSB (CC 6), with the LSB (CC 38) last sent: applies the selected NRPN or RPN.
    func dataEntry(channel: Int, value: Int) {
        let cc = controllers + channel * 128
        let data = value << 7 + Int(cc[38])
        if channels[channel].nrpnActive {
            // SoundFont NRPNs: NRPN MSB 120, the generator number summed from NRPN LSBs below 100 (and 100, 101, 102 for ×100…).
            guard cc[99] == 120 && cc[98] < 100 else { return }
            let generator = channels[channel].nrpnSelect
            channels[channel].nrpnSelect = 0
            guard generator < Self.nrpnScales.count else { return }
            setGeneratorOffset(channel: channel, generator: generator, Float(min(max(data - 8192, -8192), 8192)) * Self.nrpnScales[generator])
        } else if cc[101] == 0 {
            switch cc[100] {
            case 0:  // pitch bend range in semitones (the LSB's cents ignored, as FluidSynth does)
                channels[channel].pitchSensitivity = value
                updateModulators(channel: channel)
            case 1:  // fine tuning, 14 bits over ±100 cents
                setGeneratorOffset(channel: channel, generator: Gen.fineTune, Float(data - 8192) * (100 / 8192))
            case 2:  // coarse tuning in semitones, 64 the centre
                setGeneratorOffset(channel: channel, generator: Gen.coarseTune, Float(value - 64))
            default: break
            }
        }
    }

    /// NRPN LSB (CC 98) and MSB (CC 99), RPN LSB and MSB (CC 100, 101): which parameter data entry sets.
    func selectParameter(channel: Int, controller: Int, value: Int) {
        let cc = controllers + channel * 128
        switch controller {
        case 99:
            cc[101] = 127; cc[100] = 127
            channels[channel].nrpnSelect = 0
            channels[channel].nrpnActive = true
        case 98:
            if cc[99] == 120 {
                switch value {
                case 100: channels[channel].nrpnSelect += 100
                case 101: channels[channel].nrpnSelect += 1000
                case 102: channels[channel].nrpnSelect += 10000
                default: if value < 100 { channels[channel].nrpnSelect += value }  // (a range pattern instantiates metadata, allocating, on its first use)
                }
            }
            channels[channel].nrpnActive = true
        default:
            channels[channel].nrpnActive = false
        }
    }

    /// Sets the channel's offset of `generator` and moves every voice of the channel by the change.
    func setGeneratorOffset(channel: Int, generator: Int, _ offset: Float) {
        let slot = generatorOffsets + channel * Gen.count + generator
        let change = offset - slot.pointee
        slot.pointee = offset
        for v in 0..<polyphony where statuses[v].isOn(channel: channel) {
            generatorValues[v * Gen.count + generator] += change
            updateParameters(v, envelopes: false)
        }
    }

    /// Per generator, the NRPN data step (FluidSynth's `nrpn_scale`): 0 where an NRPN cannot set it.
    static let nrpnScales: [Float] = [
        1, 1, 1, 1, 1, 2, 2, 2, 2, 1,  // 0-9: sample offsets, LFO/envelope to pitch, filter cutoff and Q
        2, 2, 1, 1, 0, 1, 1, 1, 0, 0,  // 10-19: to filter, end coarse offset, LFO to volume, sends, pan
        0, 2, 4, 2, 4, 2, 2, 2, 2, 1,  // 20-29: LFO delays and frequencies, modulation envelope
        2, 1, 1, 2, 2, 2, 2, 1, 2, 1,  // 30-39: modulation envelope release and key scaling, volume envelope
        1, 0, 0, 0, 0, 1, 0, 0, 1, 0,  // 40-49: key to decay, ranges, loop start coarse, keynum, velocity, attenuation
        1, 1, 1, 0, 0, 0, 1, 0, 0,     // 50-58: loop end coarse, coarse and fine tune, scale tuning, root key
    ]
}
