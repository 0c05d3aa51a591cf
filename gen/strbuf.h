/* Growable byte buffer used to print schemas and build output files. */
#ifndef OPGEN_STRBUF_H
#define OPGEN_STRBUF_H
#include <stddef.h>

typedef struct strbuf {
    char *p;
    size_t n, cap;
} strbuf;

void sb_init(strbuf *b);
void sb_free(strbuf *b);
void sb_reset(strbuf *b);
void sb_putn(strbuf *b, const char *s, size_t n);
void sb_puts(strbuf *b, const char *s);
void sb_putc(strbuf *b, char c);
void sb_printf(strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* JSON string literal with Python json.dumps escaping (ensure_ascii). */
void sb_json_str(strbuf *b, const char *s);
/* NUL-terminated view (the buffer keeps a terminator after p[n]). */
const char *sb_cstr(strbuf *b);
#endif
