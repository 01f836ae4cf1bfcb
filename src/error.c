/* Status names and the thread-local last-error message: all user-visible
 * status strings live in this file. */
#include "error.h"
#include "platform/platform.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DMLS_MESSAGE_CAPACITY 512

static DMLS_THREAD_LOCAL char tls_message[DMLS_MESSAGE_CAPACITY];
static DMLS_THREAD_LOCAL const char *tls_rule = "";

const char *dmls_status_name(dmls_status status) {
    switch (status) {
    case DMLS_OK: return "DMLS_OK";
    case DMLS_ERROR_INVALID_ARGUMENT: return "DMLS_ERROR_INVALID_ARGUMENT";
    case DMLS_ERROR_UNSUPPORTED: return "DMLS_ERROR_UNSUPPORTED";
    case DMLS_ERROR_OUT_OF_BOUNDS: return "DMLS_ERROR_OUT_OF_BOUNDS";
    case DMLS_ERROR_SHAPE_MISMATCH: return "DMLS_ERROR_SHAPE_MISMATCH";
    case DMLS_ERROR_OVERFLOW: return "DMLS_ERROR_OVERFLOW";
    case DMLS_ERROR_BUFFER_TOO_SMALL: return "DMLS_ERROR_BUFFER_TOO_SMALL";
    case DMLS_ERROR_MISALIGNED: return "DMLS_ERROR_MISALIGNED";
    case DMLS_ERROR_OVERLAP: return "DMLS_ERROR_OVERLAP";
    case DMLS_ERROR_OUT_OF_MEMORY: return "DMLS_ERROR_OUT_OF_MEMORY";
    case DMLS_ERROR_NO_DEVICE: return "DMLS_ERROR_NO_DEVICE";
    case DMLS_ERROR_DEVICE: return "DMLS_ERROR_DEVICE";
    case DMLS_ERROR_IO: return "DMLS_ERROR_IO";
    case DMLS_ERROR_FORMAT: return "DMLS_ERROR_FORMAT";
    }
    return "DMLS_ERROR_UNKNOWN_STATUS";
}

const char *dmls_last_error(void) { return tls_message; }

const char *dmls_last_error_rule(void) { return tls_rule; }

const char *dmls_version(void) { return DMLS_VERSION_STRING; }

void dmls_clear_error(void) {
    tls_message[0] = '\0';
    tls_rule = "";
}

dmls_status dmls_fail(dmls_status status, const char *rule, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(tls_message, sizeof tls_message, fmt, args);
    va_end(args);
    if (n < 0) n = 0;
    size_t used = (size_t)n < sizeof tls_message ? (size_t)n : sizeof tls_message - 1;
    if (rule != NULL && rule[0] != '\0')
        snprintf(tls_message + used, sizeof tls_message - used, " (%s)", rule);
    tls_rule = rule != NULL ? rule : "";
    return status;
}
