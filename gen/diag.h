/* Diagnostics: `file:line:col: error: message`, counted and capped so one bad
 * file cannot flood a build log. */
#ifndef OG_DIAG_H
#define OG_DIAG_H
#include <stdbool.h>
#include <stdio.h>

typedef struct diag {
    FILE *out;       /* where messages go (stderr); NULL silences them */
    unsigned errors; /* all errors seen */
    unsigned max;    /* errors shown before the rest are only counted */
    bool muted;      /* set when the cap is reached; notes of hidden errors are dropped */
} diag;

void diag_init(diag *d, FILE *out);
void diag_error(diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* A note attached to the previous error (e.g. where a duplicate was first seen). */
void diag_note(diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* A whole-file or usage problem with no position. */
void diag_plain(diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints "N errors in all" when some were not shown. */
void diag_finish(diag *d);
#endif
