#ifndef SEQPLAY_SEQ_SHIM_H
#define SEQPLAY_SEQ_SHIM_H
#include <alsa/asoundlib.h>

/* The external-data part of a sequencer event (System Exclusive) is a packed struct whose pointer
 * Swift cannot reach, so these helpers read and write it. */

/* Marks `ev` as a variable-length event carrying `length` bytes at `data` (not copied: the bytes
 * must stay valid until the event has been written). */
static inline void seqplay_seq_ev_set_variable(snd_seq_event_t *ev, unsigned int length, const void *data) {
    ev->flags &= ~SND_SEQ_EVENT_LENGTH_MASK;
    ev->flags |= SND_SEQ_EVENT_LENGTH_VARIABLE;
    ev->data.ext.len = length;
    ev->data.ext.ptr = (void *)data;
}

/* Length of the variable-length data of a received event. */
static inline unsigned int seqplay_seq_ev_variable_length(const snd_seq_event_t *ev) {
    return ev->data.ext.len;
}

/* The variable-length data of a received event (valid until the next read from the sequencer). */
static inline const unsigned char *seqplay_seq_ev_variable_data(const snd_seq_event_t *ev) {
    return (const unsigned char *)ev->data.ext.ptr;
}

#endif
