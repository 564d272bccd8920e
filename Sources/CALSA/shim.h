#include <alsa/asoundlib.h>

/* alsa-lib's error handler type is variadic, which Swift cannot import or implement, so the
 * handler that discards alsa-lib's own stderr messages is written here. Errors still reach the
 * caller as return codes; the Swift wrapper turns those into typed errors. */
static void seqplay_alsa_discard_error(const char *file, int line, const char *function, int err,
                                       const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Installs the discarding handler for the whole process. Returns 0 or a negative errno. */
static inline int seqplay_alsa_silence_library_errors(void) {
    return snd_lib_error_set_handler(seqplay_alsa_discard_error);
}

#include "seq_shim.h"
