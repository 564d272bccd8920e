#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/state/state.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>
#include <stdarg.h>
#include <stdio.h>

// LV2's log feature calls printf-style (variadic) functions, which Swift cannot define. These format the
// message into a buffer on the caller's stack (no allocation for the formats plugins use) and hand the
// text to `post`, which queues it without locking (seqplay's log queue); the render thread may log.
typedef struct {
    void (*post)(void *context, uint32_t type, const char *text);
    void *context;
} seqplay_lv2_log_target;

static inline int seqplay_lv2_log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list arguments) {
    char text[256];
    int length = vsnprintf(text, sizeof text, format, arguments);
    if (length > 0 && (size_t)length < sizeof text && text[length - 1] == '\n') text[length - 1] = 0;
    seqplay_lv2_log_target *target = (seqplay_lv2_log_target *)handle;
    if (target && target->post) target->post(target->context, type, text);
    return length;
}

static inline int seqplay_lv2_log_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int length = seqplay_lv2_log_vprintf(handle, type, format, arguments);
    va_end(arguments);
    return length;
}

/// Fills `log` so that plugins' messages go to `target`.
static inline void seqplay_lv2_log_init(LV2_Log_Log *log, seqplay_lv2_log_target *target) {
    log->handle = target;
    log->printf = seqplay_lv2_log_printf;
    log->vprintf = seqplay_lv2_log_vprintf;
}
