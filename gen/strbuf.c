/* A growable byte buffer (strbuf.h), or in stream mode a fixed one flushed
 * as it fills. */
#include "strbuf.h"
#include "arena.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *b) { memset(b, 0, sizeof *b); }
void sb_free(strbuf *b) {
    if (!b->flush) free(b->p); /* a stream's buffer is its owner's */
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
    char *p = og_xrealloc(b->p, cap);
    b->p = p;
    b->cap = cap;
}

char *sb_room_slow(strbuf *b, size_t n) {
    if (!b->flush) {
        sb_grow(b, n);
        return b->p + b->n;
    }
    sb_drain(b);
    return n < b->cap ? b->p : (b->spill = og_xmalloc(n + 1));
}

void sb_end_spilled(strbuf *b, char *end) {
    char *s = b->spill;
    b->spill = NULL;
    sb_putn(b, s, (size_t)(end - s));
    free(s);
}

char *put_u(char *p, unsigned long long u) {
    static const char dec2[] = /* "00" .. "99" */
        "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
        "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";
    if (u < 10) {
        *p = (char)('0' + u);
        return p + 1;
    }
    char num[24], *q = num + sizeof num;
    while (u >= 100) {
        q -= 2;
        memcpy(q, dec2 + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u < 10) {
        *--q = (char)('0' + u);
    } else {
        q -= 2;
        memcpy(q, dec2 + 2 * u, 2);
    }
    return put_mem(p, q, (size_t)(num + sizeof num - q));
}

char *put_hex32(char *p, uint32_t v) {
    static const char hex2[] = /* "00" .. "ff": two digits a byte */
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
        "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
        "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    p[0] = '0', p[1] = 'x';
    memcpy(p + 2, hex2 + 2 * (v >> 24), 2);
    memcpy(p + 4, hex2 + 2 * ((v >> 16) & 255), 2);
    memcpy(p + 6, hex2 + 2 * ((v >> 8) & 255), 2);
    memcpy(p + 8, hex2 + 2 * (v & 255), 2);
    return p + 10;
}

void sb_stream(strbuf *b, char *p, size_t cap, sb_flush_fn flush) {
    memset(b, 0, sizeof *b);
    b->p = p;
    b->cap = cap;
    b->flush = flush;
    p[0] = 0;
}

void sb_drain(strbuf *b) {
    if (!b->n) return;
    size_t n = b->n;
    b->last = b->p[n - 1];
    b->flushed += n;
    b->n = 0;
    b->flush(b, b->p, n); /* it may hand the buffer on and give the stream another */
    b->p[0] = 0;
}

void sb_putn_slow(strbuf *b, const char *s, size_t n) {
    if (b->flush) {
        sb_drain(b);
        if (n < b->cap) {
            memcpy(b->p, s, n);
            b->n = n;
            b->p[n] = 0;
        } else { /* larger than the buffer: straight through */
            b->flush(b, s, n);
            b->flushed += n;
            b->last = s[n - 1];
        }
        return;
    }
    sb_grow(b, n);
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* The emitters print megabytes through sb_printf, nearly all with %s, %u, %d, %x
 * and widths: formatted here directly, as vsnprintf's generality costs more than
 * the rest of an emitter. Anything else (%g, precision, ...) goes to vsnprintf. */
static bool simple_format(const char *f) {
    for (; *f; f++) {
        if (*f != '%') continue;
        f++;
        if (*f == '%') continue;
        while (*f == '-' || *f == '0') f++;
        while (*f >= '0' && *f <= '9') f++;
        if (*f == 'l')
            f += f[1] == 'l' ? 2 : 1;
        else if (*f == 'z')
            f++;
        if (!*f || !strchr("sduxc", *f)) return false;
    }
    return true;
}

static void put_padded(strbuf *b, const char *s, size_t n, unsigned width, bool left, char pad) {
    if (!left)
        for (size_t i = n; i < width; i++) sb_putc(b, pad);
    sb_putn(b, s, n);
    if (left)
        for (size_t i = n; i < width; i++) sb_putc(b, ' ');
}

static void format(strbuf *b, const char *f, va_list ap) {
    while (*f) {
        const char *lit = f;
        while (*f && *f != '%') f++;
        if (f > lit) sb_putn(b, lit, (size_t)(f - lit));
        if (!*f) break;
        f++;
        if (*f == '%') {
            sb_putc(b, '%');
            f++;
            continue;
        }
        bool left = false;
        char pad = ' ';
        for (; *f == '-' || *f == '0'; f++) *f == '-' ? (void)(left = true) : (void)(pad = '0');
        unsigned width = 0;
        while (*f >= '0' && *f <= '9') width = width * 10 + (unsigned)(*f++ - '0');
        int len = 0; /* 0 int, 1 long, 2 long long, 3 size_t */
        if (*f == 'l')
            len = f[1] == 'l' ? (f += 2, 2) : (f++, 1);
        else if (*f == 'z')
            len = 3, f++;
        char conv = *f++, num[24], *e = num + sizeof num, *p = e;
        if (conv == 's') {
            const char *s = va_arg(ap, const char *);
            put_padded(b, s, strlen(s), width, left, ' ');
            continue;
        }
        if (conv == 'c') {
            char c = (char)va_arg(ap, int);
            put_padded(b, &c, 1, width, left, ' ');
            continue;
        }
        unsigned long long u;
        bool neg = false;
        if (conv == 'd') {
            long long v = len == 0   ? va_arg(ap, int)
                          : len == 1 ? va_arg(ap, long)
                          : len == 2 ? va_arg(ap, long long)
                                     : (long long)va_arg(ap, size_t);
            neg = v < 0;
            u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
        } else {
            u = len == 0   ? va_arg(ap, unsigned)
                : len == 1 ? va_arg(ap, unsigned long)
                : len == 2 ? va_arg(ap, unsigned long long)
                           : va_arg(ap, size_t);
        }
        unsigned base = conv == 'x' ? 16 : 10;
        do *--p = "0123456789abcdef"[u % base];
        while ((u /= base) != 0);
        if (neg && pad == '0' && !left) { /* the sign goes before zero padding */
            sb_putc(b, '-');
            put_padded(b, p, (size_t)(e - p), width ? width - 1 : 0, false, '0');
            continue;
        }
        if (neg) *--p = '-';
        put_padded(b, p, (size_t)(e - p), width, left, left ? ' ' : pad);
    }
}

void sb_printf(strbuf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    if (simple_format(fmt)) {
        va_start(ap, fmt);
        format(b, fmt, ap);
        va_end(ap);
        return;
    }
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    if ((size_t)n < sizeof small) {
        sb_putn(b, small, (size_t)n);
        return;
    }
    char *big = og_xrealloc(NULL, (size_t)n + 1);
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
            const char *esc = c == '\n'   ? "\\n"
                              : c == '\r' ? "\\r"
                              : c == '\t' ? "\\t"
                              : c == '\b' ? "\\b"
                              : c == '\f' ? "\\f"
                                          : NULL;
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

void sb_putu(strbuf *b, unsigned long long u) {
    char num[24];
    sb_putn(b, num, (size_t)(put_u(num, u) - num));
}

void sb_puti(strbuf *b, long long v) {
    if (v < 0) sb_putc(b, '-');
    sb_putu(b, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
}

void sb_puthex32(strbuf *b, uint32_t v) {
    char num[10];
    sb_putn(b, num, (size_t)(put_hex32(num, v) - num));
}
