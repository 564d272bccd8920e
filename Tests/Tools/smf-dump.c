/* Prints what libsmf 1.3 decodes from a Standard MIDI File, for the differential test
 * (Tests/MIDIFileTests/LibSMFDifferentialTests.swift), which builds and runs it in a child process:
 *   smf-dump FILE
 * Output: "format F ppqn P tracks N", then one line per event: "TRACK TICK HEXBYTES" (track 0-based,
 * absolute tick in pulses, the event's bytes as libsmf holds them). Exit status 2 if libsmf refuses the file. */
#include <smf.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: smf-dump FILE\n");
        return 64;
    }
    smf_t *smf = smf_load(argv[1]);
    if (smf == NULL) return 2;
    printf("format %d ppqn %d tracks %d\n", smf->format, smf->ppqn, smf->number_of_tracks);
    for (int number = 1; number <= smf->number_of_tracks; number++) {
        smf_track_t *track = smf_get_track_by_number(smf, number);
        smf_event_t *event;
        while ((event = smf_track_get_next_event(track)) != NULL) {
            printf("%d %d ", number - 1, event->time_pulses);
            for (int i = 0; i < event->midi_buffer_length; i++) printf("%02x", event->midi_buffer[i]);
            printf("\n");
        }
    }
    smf_delete(smf);
    return 0;
}
