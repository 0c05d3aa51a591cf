/* Growable byte buffer used to print schemas and build output files; in stream
 * mode a fixed buffer whose full contents go to a flush function (an output file
 * written as it is made, never whole in memory). */
#ifndef OG_STRBUF_H
#define OG_STRBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct strbuf strbuf;
typedef void (*sb_flush_fn)(strbuf *b, const char *p, size_t n);

struct strbuf {
    char *p;
    size_t n, cap;
    /* stream mode: p[0..n) is what has not been flushed yet */
    sb_flush_fn flush;
    size_t flushed; /* bytes flushed so far */
    char last;      /* the last byte flushed */
    char *spill;    /* sb_begin's bytes when they could not go into p */
};

void sb_init(strbuf *b);
void sb_free(strbuf *b);
void sb_reset(strbuf *b);
void sb_putn_slow(strbuf *b, const char *s, size_t n);
/* Starts stream mode over the caller's buffer p[0..cap) (cap >= 2; the buffer
 * stays the caller's). */
void sb_stream(strbuf *b, char *p, size_t cap, sb_flush_fn flush);
/* Stream mode: hands what is buffered to the flush function. */
void sb_drain(strbuf *b);
/* Bytes put so far, flushed or not, and the last of them (0 if none). */
static inline size_t sb_total(const strbuf *b) { return b->flushed + b->n; }
static inline char sb_last(const strbuf *b) { return b->n ? b->p[b->n - 1] : b->last; }

static inline void sb_putn(strbuf *b, const char *s, size_t n) {
    if (b->n + n < b->cap) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
        b->p[b->n] = 0;
        return;
    }
    sb_putn_slow(b, s, n);
}
static inline void sb_puts(strbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

/* Direct writes, for the emitters' hot rows: sb_begin returns where up to n bytes
 * may be written, the caller writes them with the put_* helpers and hands the end
 * to sb_end. The bytes go straight into the buffer (a stream drains first); when
 * they cannot (more than a stream holds) they are gathered apart and put in one
 * piece. */
char *sb_room_slow(strbuf *b, size_t n);
void sb_end_spilled(strbuf *b, char *end);
static inline char *sb_begin(strbuf *b, size_t n) { return b->n + n < b->cap ? b->p + b->n : sb_room_slow(b, n); }
static inline void sb_end(strbuf *b, char *end) {
    if (b->spill) {
        sb_end_spilled(b, end);
        return;
    }
    b->n = (size_t)(end - b->p);
    b->p[b->n] = 0;
}
static inline char *put_mem(char *p, const char *s, size_t n) {
    memcpy(p, s, n);
    return p + n;
}
static inline char *put_str(char *p, const char *s) { return put_mem(p, s, strlen(s)); }
#define PUT_LIT(p, lit) put_mem((p), (lit), sizeof(lit) - 1)
/* At most 20 bytes, and 10. */
char *put_u(char *p, unsigned long long u);
char *put_hex32(char *p, uint32_t v);
static inline void sb_putc(strbuf *b, char c) { sb_putn(b, &c, 1); }
void sb_printf(strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Numbers for the hot paths of the emitters (what sb_printf's %u, %d and 0x%08x print). */
void sb_putu(strbuf *b, unsigned long long u);
void sb_puti(strbuf *b, long long v);
void sb_puthex32(strbuf *b, uint32_t v);
/* JSON string literal with Python json.dumps escaping (ensure_ascii). */
void sb_json_str(strbuf *b, const char *s);
/* NUL-terminated view (the buffer keeps a terminator after p[n]). */
const char *sb_cstr(strbuf *b);
#endif
