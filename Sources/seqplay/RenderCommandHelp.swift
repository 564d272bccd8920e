extension RenderCommand {
    /// The examples and notes `seqplay help render` shows.
    static let help = """
        Examples:
          seqplay song.mid --sf2 piano.sf2        (play to the sound card)
          seqplay song.mid --device hw:1,0 --period 128 --periods 3 -v
          seqplay song.mid --fx 'eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter'
          seqplay song.mid --device hw:0,0 --channel-map main:3-4
          seqplay song.mid -o song.wav            (default SoundFont)
          seqplay song.mid --sf2 piano.sf2 -o song.flac
          seqplay song.mid -o song.wav --bit-depth 24 --sample-rate 48000
          seqplay song.mid -o - | sox -t wav - -d     (stream WAV to a player)
          seqplay song.mid -o solo.wav --solo 2 --transpose -2 --rate 0.8
          seqplay song.mid -o verse.wav --start 17:1 --end 33:1 --loop 2
          seqplay song.mid --network-connect 127.0.0.1:5004   (play to `seqplay serve --network`)
          seqplay song.mid --port 14:0 --clock    (to a sequencer port with MIDI clock, and the sampler)
          seqplay song.mid --port 20:0,24:0 --no-audio   (only the ports, as `seqplay send`)
          seqplay song.mid --port-for-track 9=20:0   (track 9 to a drum machine, the rest to the sampler)
          seqplay song.mid --port 14:0 --start 17:1 --loop 2 --rate 0.9 --solo 3
          seqplay song.mid --route alsa           (to the sampler through the sequencer: aseqdump can watch)
          seqplay render corpus/ more.mid --output-dir out --jobs 2   (many songs; see --output-dir)

        Positions (--start, --end, --loop-from, --loop-to) are seconds
        (42, 12.5s) or bar:beat[:tick] (17:1, 9:3:240). Track numbers are
        the ones `seqplay info` lists (from 0); channels are 1 to 16
        (drums are usually on 10).

        Every playback flag (--start, --end, --loop, --rate, --transpose,
        --mute, --solo) applies alike to the sampler, the --port ports
        and the --network-connect peer: they all get the same events at
        the same times. A track given its own port with --port-for-track
        plays there only.

        While playing on a terminal (sampler only): space pauses and
        resumes, left/right arrows seek 5 s back/forward, q quits; Ctrl-C
        ends with all notes off and the device drained. --fx applies the
        same effect chain to playback and to -o rendering (seqplay help
        render lists the effects in the --fx help).

        Without --sf2 the SoundFont is $SEQPLAY_SOUNDFONT, else the
        seqplay-gm.sf2 installed with seqplay (<prefix>/share/seqplay), else
        Debian's /usr/share/sounds/sf2/default-GM.sf2, else the seqplay-gm.sf2
        in SoundFonts/ of the checkout seqplay was built in.

        Exit status: 0 done, 1 other failure, 2 some songs of --output-dir
        failed, 3 bad MIDI file, 4 bad SoundFont, 5 a file cannot be read
        or written (or no sound card,
        or the device failed), 6 no ALSA sequencer (--port, --route alsa),
        7 the network peer did not answer and clock-sync within 15 s,
        8 the network address cannot be used, 64 bad command line,
        130 interrupted (Ctrl-C).
        """
}
