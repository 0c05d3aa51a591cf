/* The template expander (tmpl.h): {{name}} replaced by values, whole-line
 * tags vanishing when empty. */
#include "tmpl.h"
#include <string.h>

static const og_tvar *find(const og_tvar *vars, unsigned n, const char *name, size_t len) {
    for (unsigned i = 0; i < n; i++)
        if (strlen(vars[i].name) == len && !memcmp(vars[i].name, name, len)) return &vars[i];
    return NULL;
}

static void put_value(strbuf *out, const og_tvar *v) {
    if (v->render)
        v->render(out, v->ctx);
    else
        sb_puts(out, v->value);
}

bool og_tmpl_expand(strbuf *out, const char *file, const char *t, size_t len, const og_tvar *vars, unsigned nvars,
                    diag *d) {
    unsigned before = d->errors, line = 1;
    size_t i = 0;
    while (i < len) {
        size_t eol = i;
        while (eol < len && t[eol] != '\n') eol++;
        size_t next = eol < len ? eol + 1 : eol;
        /* a tag alone on its line? */
        size_t k = i;
        while (k < eol && (t[k] == ' ' || t[k] == '\t')) k++;
        if (eol - k >= 4 && t[k] == '{' && t[k + 1] == '{' && t[eol - 1] == '}' && t[eol - 2] == '}' &&
            !memchr(t + k + 2, '{', eol - k - 4)) {
            const char *name = t + k + 2;
            size_t nl = eol - k - 4;
            if (name[0] == '!') {
                i = next;
                line++;
                continue;
            }
            const og_tvar *v = find(vars, nvars, name, nl);
            if (!v) {
                diag_error(d, file, line, (unsigned)(k - i + 1), "unknown template variable '%.*s'", (int)nl, name);
            } else {
                size_t start = sb_total(out);
                put_value(out, v);
                if (sb_total(out) > start && sb_last(out) != '\n') sb_putc(out, '\n');
            }
            i = next;
            line++;
            continue;
        }
        /* inline tags */
        size_t p = i;
        while (p < eol) {
            if (p + 1 < eol && t[p] == '{' && t[p + 1] == '{') {
                size_t q = p + 2;
                while (q + 1 < eol && !(t[q] == '}' && t[q + 1] == '}')) q++;
                if (q + 1 >= eol) {
                    diag_error(d, file, line, (unsigned)(p - i + 1), "'{{' without a closing '}}' on this line");
                    break;
                }
                if (t[p + 2] != '!') {
                    const og_tvar *v = find(vars, nvars, t + p + 2, q - p - 2);
                    if (!v)
                        diag_error(d, file, line, (unsigned)(p - i + 1), "unknown template variable '%.*s'",
                                   (int)(q - p - 2), t + p + 2);
                    else
                        put_value(out, v);
                }
                p = q + 2;
                continue;
            }
            size_t s = p;
            while (p < eol && !(p + 1 < eol && t[p] == '{' && t[p + 1] == '{')) p++;
            sb_putn(out, t + s, p - s);
        }
        if (eol < len) sb_putc(out, '\n');
        i = next;
        line++;
    }
    return d->errors == before;
}
