#include "strbuf.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *b) { memset(b, 0, sizeof *b); }
void sb_free(strbuf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}
void sb_reset(strbuf *b) {
    b->n = 0;
    if (b->p) b->p[0] = 0;
}

static void sb_grow(strbuf *b, size_t extra) {
    if (b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fputs("opgen: out of memory\n", stderr);
        exit(3);
    }
    b->p = p;
    b->cap = cap;
}

void sb_expect(strbuf *b, const char *text, size_t len) {
    b->expect = text;
    b->expect_len = len;
    b->mismatch = 0;
    b->n = 0;
}

bool sb_matched(const strbuf *b) { return b->expect && !b->mismatch && b->n == b->expect_len; }

void sb_putn_slow(strbuf *b, const char *s, size_t n) {
    if (b->expect) {
        if (b->mismatch) return;
        size_t k = 0;
        while (k < n && b->n + k < b->expect_len && b->expect[b->n + k] == s[k]) k++;
        b->n += k;
        if (k < n) b->mismatch = 1;
        return;
    }
    sb_grow(b, n);
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

void sb_printf(strbuf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    if ((size_t)n < sizeof small) {
        sb_putn(b, small, (size_t)n); /* also right in compare mode */
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        fputs("opgen: out of memory\n", stderr);
        exit(3);
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_putn(b, big, (size_t)n);
    free(big);
}

const char *sb_cstr(strbuf *b) {
    if (!b->p) sb_grow(b, 0), b->p[0] = 0;
    return b->p;
}

/* Decode one UTF-8 sequence; invalid bytes decode as themselves (U+00xx). */
static uint32_t utf8_next(const unsigned char **ps) {
    const unsigned char *s = *ps;
    uint32_t c = s[0];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len <= 1) {
        *ps = s + 1;
        return c;
    }
    uint32_t v = c & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *ps = s + 1;
            return c;
        }
        v = (v << 6) | (s[i] & 0x3f);
    }
    *ps = s + len;
    return v;
}

void sb_json_str(strbuf *b, const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    sb_putc(b, '"');
    while (*s) {
        unsigned char c = *s;
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            const unsigned char *start = s;
            while (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\') s++;
            sb_putn(b, (const char *)start, (size_t)(s - start));
            continue;
        }
        if (c == '"' || c == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)c);
            s++;
            continue;
        }
        if (c < 0x80) {
            const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
            if (esc)
                sb_puts(b, esc);
            else
                sb_printf(b, "\\u%04x", c);
            s++;
            continue;
        }
        uint32_t cp = utf8_next(&s);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            sb_printf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
            sb_printf(b, "\\u%04x", cp);
        }
    }
    sb_putc(b, '"');
}
