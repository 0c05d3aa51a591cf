/* Compares two JSON-lines files entry by entry, as values (key order, spacing
 * and escapes do not matter), optionally dropping one string from every "tags"
 * array. Reports the first differences with entry number, op name and path.
 * usage: jsonl_diff EXPECTED ACTUAL [--ignore-tag NAME] [--max N]
 * exit 0 same, 1 different, 2 unreadable. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;
typedef struct jval jval;
struct jval {
    jkind k;
    bool b;
    char *s;     /* string, number text, or object key storage */
    jval **kids; /* array items / object values */
    char **keys; /* object keys */
    size_t n;
};

typedef struct {
    const char *p, *e;
    bool bad;
} parser;

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) exit(2);
    return p;
}

static void ws(parser *ps) {
    while (ps->p < ps->e && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n')) ps->p++;
}

static void put_utf8(char **o, unsigned cp) {
    char *q = *o;
    if (cp < 0x80)
        *q++ = (char)cp;
    else if (cp < 0x800)
        *q++ = (char)(0xc0 | (cp >> 6)), *q++ = (char)(0x80 | (cp & 0x3f));
    else if (cp < 0x10000)
        *q++ = (char)(0xe0 | (cp >> 12)), *q++ = (char)(0x80 | ((cp >> 6) & 0x3f)), *q++ = (char)(0x80 | (cp & 0x3f));
    else
        *q++ = (char)(0xf0 | (cp >> 18)), *q++ = (char)(0x80 | ((cp >> 12) & 0x3f)),
        *q++ = (char)(0x80 | ((cp >> 6) & 0x3f)), *q++ = (char)(0x80 | (cp & 0x3f));
    *o = q;
}

static unsigned hex4(parser *ps) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (ps->p >= ps->e) return ps->bad = true, 0;
        char c = *ps->p++;
        v = v * 16 + (unsigned)(c >= '0' && c <= '9'   ? c - '0'
                                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                       : (ps->bad = true, 0));
    }
    return v;
}

static char *str(parser *ps) {
    ps->p++; /* opening quote */
    char *out = xmalloc((size_t)(ps->e - ps->p) * 2 + 1), *o = out;
    while (ps->p < ps->e && *ps->p != '"') {
        char c = *ps->p++;
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        if (ps->p >= ps->e) break;
        c = *ps->p++;
        switch (c) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned cp = hex4(ps);
            if (cp >= 0xd800 && cp < 0xdc00 && ps->p + 1 < ps->e && ps->p[0] == '\\' && ps->p[1] == 'u') {
                ps->p += 2;
                unsigned lo = hex4(ps);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            put_utf8(&o, cp);
            break;
        }
        default: *o++ = c;
        }
    }
    if (ps->p >= ps->e) ps->bad = true;
    ps->p++;
    *o = 0;
    return out;
}

static jval *value(parser *ps, int depth) {
    ws(ps);
    if (ps->p >= ps->e || depth > 64) return ps->bad = true, NULL;
    jval *v = calloc(1, sizeof *v);
    if (!v) exit(2);
    char c = *ps->p;
    if (c == '"') {
        v->k = J_STR;
        v->s = str(ps);
    } else if (c == '{' || c == '[') {
        bool obj = c == '{';
        v->k = obj ? J_OBJ : J_ARR;
        ps->p++;
        size_t cap = 8;
        v->kids = xmalloc(cap * sizeof *v->kids);
        v->keys = obj ? xmalloc(cap * sizeof *v->keys) : NULL;
        ws(ps);
        if (ps->p < ps->e && *ps->p == (obj ? '}' : ']')) {
            ps->p++;
            return v;
        }
        for (;;) {
            if (v->n == cap) {
                cap *= 2;
                v->kids = realloc(v->kids, cap * sizeof *v->kids);
                if (obj) v->keys = realloc(v->keys, cap * sizeof *v->keys);
                if (!v->kids || (obj && !v->keys)) exit(2);
            }
            if (obj) {
                ws(ps);
                if (ps->p >= ps->e || *ps->p != '"') return ps->bad = true, v;
                v->keys[v->n] = str(ps);
                ws(ps);
                if (ps->p >= ps->e || *ps->p != ':') return ps->bad = true, v;
                ps->p++;
            }
            v->kids[v->n++] = value(ps, depth + 1);
            if (ps->bad) return v;
            ws(ps);
            if (ps->p < ps->e && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->e && *ps->p == (obj ? '}' : ']')) {
                ps->p++;
                return v;
            }
            return ps->bad = true, v;
        }
    } else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        v->k = J_BOOL;
        v->b = c == 't';
        ps->p += v->b ? 4 : 5;
    } else if (!strncmp(ps->p, "null", 4)) {
        v->k = J_NULL;
        ps->p += 4;
    } else {
        const char *s = ps->p;
        while (ps->p < ps->e && strchr("+-0123456789.eE", *ps->p)) ps->p++;
        if (s == ps->p) return ps->bad = true, v;
        v->k = J_NUM;
        v->s = xmalloc((size_t)(ps->p - s) + 1);
        memcpy(v->s, s, (size_t)(ps->p - s));
        v->s[ps->p - s] = 0;
    }
    return v;
}

static void jfree(jval *v) {
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        jfree(v->kids[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->kids);
    free(v->keys);
    free(v->s);
    free(v);
}

static const jval *get(const jval *o, const char *k) {
    if (!o || o->k != J_OBJ) return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], k)) return o->kids[i];
    return NULL;
}

static void drop_tag(jval *o, const char *tag) {
    jval *t = (jval *)get(o, "tags");
    if (!t || t->k != J_ARR || !tag) return;
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kids[i] && t->kids[i]->k == J_STR && !strcmp(t->kids[i]->s, tag)) {
            jfree(t->kids[i]);
            continue;
        }
        t->kids[w++] = t->kids[i];
    }
    t->n = w;
}

static void show(FILE *f, const jval *v) {
    if (!v) {
        fputs("(missing)", f);
        return;
    }
    switch (v->k) {
    case J_NULL: fputs("null", f); break;
    case J_BOOL: fputs(v->b ? "true" : "false", f); break;
    case J_NUM: fputs(v->s, f); break;
    case J_STR: fprintf(f, "\"%s\"", v->s); break;
    case J_ARR:
        fputc('[', f);
        for (size_t i = 0; i < v->n; i++) fputs(i ? ", " : "", f), show(f, v->kids[i]);
        fputc(']', f);
        break;
    case J_OBJ:
        fputc('{', f);
        for (size_t i = 0; i < v->n; i++) fprintf(f, "%s\"%s\": ", i ? ", " : "", v->keys[i]), show(f, v->kids[i]);
        fputc('}', f);
        break;
    }
}

/* Returns the number of differences reported (0 if equal). */
static int cmp(const jval *x, const jval *y, char *path, size_t plen, const char *where, int budget) {
    if (budget <= 0) return 0;
    bool same = x && y && x->k == y->k;
    if (same) {
        switch (x->k) {
        case J_NULL: break;
        case J_BOOL: same = x->b == y->b; break;
        case J_NUM:
        case J_STR: same = !strcmp(x->s, y->s); break;
        case J_ARR:
            if (x->n != y->n) {
                same = false;
                break;
            }
            {
                int d = 0;
                for (size_t i = 0; i < x->n && d < budget; i++) {
                    size_t l = plen + (size_t)snprintf(path + plen, 512 - plen, "[%zu]", i);
                    d += cmp(x->kids[i], y->kids[i], path, l < 512 ? l : 511, where, budget - d);
                }
                path[plen] = 0;
                return d;
            }
        case J_OBJ: {
            int d = 0;
            for (size_t i = 0; i < x->n && d < budget; i++) {
                size_t l = plen + (size_t)snprintf(path + plen, 512 - plen, ".%s", x->keys[i]);
                d += cmp(x->kids[i], get(y, x->keys[i]), path, l < 512 ? l : 511, where, budget - d);
            }
            for (size_t i = 0; i < y->n && d < budget; i++)
                if (!get(x, y->keys[i])) {
                    size_t l = plen + (size_t)snprintf(path + plen, 512 - plen, ".%s", y->keys[i]);
                    d += cmp(NULL, y->kids[i], path, l < 512 ? l : 511, where, budget - d);
                }
            path[plen] = 0;
            return d;
        }
        }
    }
    if (same) return 0;
    printf("%s %s: expected ", where, path[0] ? path : "(entry)");
    show(stdout, x);
    printf(", got ");
    show(stdout, y);
    printf("\n");
    return 1;
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, len = 0;
    char *b = xmalloc(cap);
    size_t r;
    while ((r = fread(b + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) b = realloc(b, cap *= 2);
        if (!b) exit(2);
    }
    fclose(f);
    *n = len;
    return b;
}

static const char *next_line(const char **p, const char *e, const char **le) {
    if (*p >= e) return NULL;
    const char *s = *p, *nl = memchr(s, '\n', (size_t)(e - s));
    *le = nl ? nl : e;
    *p = nl ? nl + 1 : e;
    return s;
}

int main(int argc, char **argv) {
    const char *ignore = NULL;
    int max = 20;
    if (argc < 3) {
        fputs("usage: jsonl_diff EXPECTED ACTUAL [--ignore-tag NAME] [--max N]\n", stderr);
        return 2;
    }
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--ignore-tag") && i + 1 < argc)
            ignore = argv[++i];
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max = atoi(argv[++i]);
    }
    size_t na, nb;
    char *a = slurp(argv[1], &na), *b = slurp(argv[2], &nb);
    if (!a || !b) {
        fprintf(stderr, "jsonl_diff: cannot read %s\n", !a ? argv[1] : argv[2]);
        return 2;
    }
    const char *pa = a, *pb = b, *ea = a + na, *eb = b + nb, *la, *lb;
    int diffs = 0;
    size_t entries = 0, ca = 0, cb = 0;
    for (;;) {
        const char *sa = next_line(&pa, ea, &la), *sb = next_line(&pb, eb, &lb);
        if (!sa && !sb) break;
        entries++;
        ca += sa != NULL;
        cb += sb != NULL;
        if (!sa || !sb) continue;
        parser x = {sa, la, false}, y = {sb, lb, false};
        jval *vx = value(&x, 0), *vy = value(&y, 0);
        if (x.bad || y.bad) {
            printf("entry %zu: unparsable JSON in %s\n", entries, x.bad ? argv[1] : argv[2]);
            diffs++;
        } else {
            drop_tag(vx, ignore);
            drop_tag(vy, ignore);
            const jval *nm = get(vx, "name"), *ov = get(vx, "overload");
            char where[300], path[512] = "";
            snprintf(where, sizeof where, "entry %zu (%s%s%s):", entries, nm && nm->s ? nm->s : "?",
                     ov && ov->s && ov->s[0] ? "." : "", ov && ov->s ? ov->s : "");
            diffs += cmp(vx, vy, path, 0, where, max - diffs);
        }
        jfree(vx);
        jfree(vy);
        if (diffs >= max) {
            printf("... stopping after %d differences\n", max);
            break;
        }
    }
    if (diffs < max && ca != cb) {
        printf("entry counts differ: expected %zu, got %zu\n", ca, cb);
        diffs++;
    }
    free(a);
    free(b);
    if (diffs) return 1;
    printf("jsonl_diff: %zu entries equal\n", ca);
    return 0;
}
