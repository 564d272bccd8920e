#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/transport.h>

/* JACK_DEFAULT_AUDIO_TYPE and JACK_DEFAULT_MIDI_TYPE are string macros Swift does not import. */
static inline const char *seqplay_jack_audio_type(void) { return JACK_DEFAULT_AUDIO_TYPE; }
static inline const char *seqplay_jack_midi_type(void) { return JACK_DEFAULT_MIDI_TYPE; }

/* jack_client_open is variadic (the server name follows JackServerName), which Swift cannot call. */
static inline jack_client_t *seqplay_jack_client_open(const char *name, const char *server_name,
                                                       jack_status_t *status) {
    if (server_name)
        return jack_client_open(name, JackNoStartServer | JackServerName, status, server_name);
    return jack_client_open(name, JackNoStartServer, status);
}
