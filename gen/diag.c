/* Diagnostics (diag.h): "file:line:col: error: message", counted and capped. */
#include "diag.h"
#include "config.h"
#include <stdarg.h>

void diag_init(diag *d, FILE *out) {
    d->out = out;
    d->errors = 0;
    d->max = OPGEN_MAX_ERRORS;
    d->muted = false;
}

static void report(diag *d, const char *file, unsigned line, unsigned col, const char *kind, const char *fmt,
                   va_list ap) {
    if (!d->out) return;
    if (file && line)
        fprintf(d->out, "%s:%u:%u: %s: ", file, line, col ? col : 1, kind);
    else if (file)
        fprintf(d->out, "%s: %s: ", file, kind);
    else
        fprintf(d->out, "opgen: %s: ", kind);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
}
void diag_error(diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...) {
    d->errors++;
    if (d->errors > d->max) {
        d->muted = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    report(d, file, line, col, "error", fmt, ap);
    va_end(ap);
}

void diag_note(diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...) {
    if (d->muted) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, file, line, col, "note", fmt, ap);
    va_end(ap);
}

void diag_plain(diag *d, const char *fmt, ...) {
    d->errors++;
    if (!d->out) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("opgen: error: ", d->out);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    va_end(ap);
}

void diag_finish(diag *d) {
    if (d->out && d->errors > d->max)
        fprintf(d->out, "opgen: %u errors in all; only the first %u are shown\n", d->errors, d->max);
}
